"""fp8 codes to f32 and back by integer ops every target has (the formats: compiler/ir/fp8.py).

Decoding shifts the code's exponent and mantissa into an f32's fields (subnormals: the mantissa
times the smallest subnormal). Encoding rounds the f32's bits to nearest even: normal results by
adding just under half the dropped part plus its last kept bit, subnormal ones the same way at a
shift that grows as the exponent falls; then overflow (e4m3fn saturates, e5m2 becomes infinity)
and NaN. Both follow torch's conversions bit for bit.
"""

from __future__ import annotations

import numpy as np

from compiler.ir import Builder, Value, fp8
from compiler.passes.hardware_dependent.emulate_narrow_floats.words import (
    F32_BIAS,
    F32_INFINITY,
    F32_MANTISSA,
    F32_NAN,
    Words,
)


def decode(builder: Builder, byte: Value, dtype: str) -> Value:
    """The f32 value of the fp8 code `byte` (a u8 value)."""
    f = fp8.FORMATS[dtype]
    w = Words(builder, byte)
    code = builder.value("arith.cast", byte, dtype="u32")
    sign = w.op("arith.shl", w.op("arith.and", code, 0x80), 24)
    magnitude = w.op("arith.and", code, 0x7F)
    exponent = w.op("arith.shr", magnitude, f.mantissa_bits)
    mantissa = w.op("arith.and", magnitude, (1 << f.mantissa_bits) - 1)
    normal = w.op("arith.shl", magnitude, F32_MANTISSA - f.mantissa_bits)
    normal = w.op("arith.add", normal, (F32_BIAS - f.bias) << F32_MANTISSA)
    smallest = w.const(2.0 ** (1 - f.bias - f.mantissa_bits), "f32")
    tiny = builder.value("arith.cast", mantissa, dtype="f32")
    tiny = builder.value("arith.bitcast", builder.value("arith.mul", tiny, smallest), dtype="u32")
    bits = w.where(w.cmp(exponent, 0, "eq"), tiny, normal)
    if f.has_infinity:
        special = w.where(w.cmp(mantissa, 0, "eq"), F32_INFINITY, F32_NAN)
        bits = w.where(w.cmp(exponent, (1 << f.exponent_bits) - 1, "eq"), special, bits)
    else:
        bits = w.where(w.cmp(magnitude, 0x7F, "eq"), F32_NAN, bits)
    return builder.value("arith.bitcast", w.op("arith.or", bits, sign), dtype="f32")


def encode(builder: Builder, value: Value, dtype: str) -> Value:
    """The fp8 code (a u8 value) nearest the f32 `value`."""
    f = fp8.FORMATS[dtype]
    w = Words(builder, value)
    bits = builder.value("arith.bitcast", value, dtype="u32")
    sign = w.op("arith.and", w.op("arith.shr", bits, 24), 0x80)
    magnitude = w.op("arith.and", bits, 0x7FFFFFFF)
    dropped = F32_MANTISSA - f.mantissa_bits
    normal = w.op(
        "arith.sub", w.round_shift(magnitude, dropped), (F32_BIAS - f.bias) << f.mantissa_bits
    )
    exponent = w.op("arith.shr", magnitude, F32_MANTISSA)
    significand = w.op(
        "arith.or", w.op("arith.and", magnitude, (1 << F32_MANTISSA) - 1), 1 << F32_MANTISSA
    )
    # Below the smallest normal the shift grows by one per exponent step; past 31 all is dropped.
    first_normal = F32_BIAS + 1 - f.bias
    shift = w.op("arith.sub", w.const(first_normal + dropped), exponent)
    shift = w.op("arith.min", shift, 31)
    code = w.where(w.cmp(exponent, first_normal, "lt"), w.round_shift(significand, shift), normal)
    if f.has_infinity:  # from half an ulp above the largest finite: infinity
        overflow = 0x80 - (1 << f.mantissa_bits)
        top = (1 << f.exponent_bits) - 2 - f.bias  # the largest finite's exponent
        limit = _f32_bits(
            float(fp8.from_bits(overflow - 1, dtype)) + 2.0 ** (top - f.mantissa_bits - 1)
        )
    else:  # from the largest finite up, infinity included: the largest finite
        overflow = 0x7E
        limit = _f32_bits(float(fp8.from_bits(overflow, dtype)))
    code = w.where(w.cmp(magnitude, limit, "ge"), overflow, code)
    code = w.where(w.cmp(magnitude, F32_INFINITY, "gt"), 0x7F, code)
    return builder.value("arith.cast", w.op("arith.or", code, sign), dtype="u8")


def _f32_bits(value: float) -> int:
    return int(np.float32(value).view(np.uint32))
