"""`ssa.emulate_narrow_floats` (`emulate_narrow_floats.py`) and the codecs it emits (`fp8_codec.py`,
`bf16_codec.py`: a format's bits to f32 and back by integer ops every target has, on the u32
words of `words.py`)."""
