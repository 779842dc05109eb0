"""`ssa.emulate_fp8` (`emulate_fp8.py`) and the codec it emits (`fp8_codec.py`: fp8 codes to f32
and back by integer ops every target has)."""
