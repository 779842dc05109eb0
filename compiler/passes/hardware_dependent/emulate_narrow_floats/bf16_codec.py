"""bf16 values to f32 and back by integer ops every target has.

A bf16 is the top half of an f32, so decoding shifts its 16 bits up. Encoding rounds the f32's
bits to nearest even (add just under half the dropped half-word, plus the last kept bit), which
also carries the largest finites past half an ulp into infinity; a NaN keeps its sign and becomes
the quiet NaN, as torch's conversion gives.
"""

from __future__ import annotations

from compiler.ir import Builder, Value
from compiler.passes.hardware_dependent.emulate_narrow_floats.words import (
    F32_INFINITY,
    Words,
)


def decode(builder: Builder, half: Value) -> Value:
    """The f32 value of the bf16 bits `half` (a u16 value)."""
    w = Words(builder, half)
    bits = w.op("arith.shl", builder.value("arith.cast", half, dtype="u32"), 16)
    return builder.value("arith.bitcast", bits, dtype="f32")


def encode(builder: Builder, value: Value) -> Value:
    """The bf16 bits (a u16 value) nearest the f32 `value`."""
    w = Words(builder, value)
    bits = builder.value("arith.bitcast", value, dtype="u32")
    rounded = w.round_shift(bits, 16)
    quiet = w.op("arith.or", w.op("arith.shr", bits, 16), 0x0040)
    nan = w.cmp(w.op("arith.and", bits, 0x7FFFFFFF), F32_INFINITY, "gt")
    return builder.value("arith.cast", w.where(nan, quiet, rounded), dtype="u16")
