"""Constants: reading and making `arith.constant` splats, and evaluating ops on constant operands.

Evaluation follows the result dtype: integers must fit their width (no fold otherwise; a cast
between integers wraps, as every target's conversion does), floats are rounded to f16/bf16/f32 as
the hardware would, `idiv`/`irem` truncate toward zero.
"""

from __future__ import annotations

import math
import operator
import struct

import numpy as np

from compiler.ir import Builder, Operation, Value, fp8
from compiler.ir.interpreter import reinterpret
from compiler.ir.type_rules import COMPARISONS
from compiler.ir.types import INT_DTYPES, ScalarType, TileType, integer_bounds, is_float, is_integer

Scalar = int | float | bool

_NUMPY_FLOATS = {"f16": np.float16, "f32": np.float32}

_SPLAT_OPS = ("tile.broadcast", "tile.expand_dims", "tile.trans")


def constant_value(value: Value) -> Scalar | None:
    """The splat value of an `arith.constant`, else None."""
    op = value.owner  # `defining_op`, inlined: the folder asks this of nearly every operand
    return op.attrs["value"] if type(op) is Operation and op.name == "arith.constant" else None


def make_constant(builder: Builder, value: Scalar, type_: ScalarType | TileType) -> Value:
    return builder.constant(represent(type_.dtype, value), type_.dtype, type_.shape)


def represent(dtype: str, value: Scalar) -> Scalar | None:
    """`value` as a constant of `dtype` holds it (bool, int or rounded float); None if it cannot."""
    if dtype == "i1":
        return bool(value)
    if is_integer(dtype):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        value = math.trunc(value)
        low, high = integer_bounds("i64" if dtype == "index" else dtype)  # index: at most 64 bits
        return value if low <= value <= high else None
    value = float(value)
    if dtype == "bf16":
        return _round_bf16(value)
    if dtype in fp8.FORMATS:
        return float(fp8.rounded(value, dtype).float())
    if dtype in _NUMPY_FLOATS:
        with np.errstate(over="ignore"):
            return float(_NUMPY_FLOATS[dtype](value))
    return value


def evaluate(op: Operation, values: list[Scalar]) -> Scalar | None:
    """The splat value `op` computes from constant operands, or None when it is not folded."""
    inputs = [represent(v.type.dtype, c) for v, c in zip(op.operands, values, strict=True)]
    if any(c is None for c in inputs):
        return None
    dtype = op.operands[0].type.dtype if op.operands else None
    result = _compute(op, dtype, inputs)
    if result is None:
        return None
    target = op.result.type.dtype
    if op.name == "arith.cast" and is_integer(dtype) and target in INT_DTYPES:
        low, high = integer_bounds(target)
        result = (result - low) % (high - low + 1) + low
    return represent(target, result)


def _compute(op: Operation, dtype: str, x: list[Scalar]) -> Scalar | None:
    name = op.name
    if name in _SPLAT_OPS or name == "arith.cast":
        return x[0]
    if name == "arith.cmp":
        return COMPARISONS[op.attrs["pred"]](x[0], x[1])
    if name in ("arith.max", "arith.min"):  # a NaN operand gives the other (IEEE maxNum)
        numbers = [v for v in x if not (isinstance(v, float) and math.isnan(v))]
        if not numbers:
            return math.nan
        return max(numbers) if name == "arith.max" else min(numbers)
    if name in ("arith.add", "arith.sub", "arith.mul") and dtype != "i1":
        return {"arith.add": operator.add, "arith.sub": operator.sub}.get(name, operator.mul)(*x)
    if name == "arith.div" and is_float(dtype) and x[1] != 0:
        return x[0] / x[1]
    if name == "math.fmod" and is_float(dtype) and x[1] != 0:
        return math.fmod(x[0], x[1])
    if name in ("arith.idiv", "arith.irem") and is_integer(dtype) and x[1] != 0:
        quotient = abs(x[0]) // abs(x[1]) * (1 if (x[0] < 0) == (x[1] < 0) else -1)
        return quotient if name == "arith.idiv" else x[0] - x[1] * quotient
    if name in ("arith.and", "arith.or", "arith.xor") and not is_float(dtype):
        return {"arith.and": operator.and_, "arith.or": operator.or_}.get(name, operator.xor)(*x)
    if name == "arith.neg" and dtype != "i1":
        return -x[0]
    if name == "arith.not" and dtype == "i1":
        return not x[0]
    if name == "arith.bitcast":
        return reinterpret(x[0], dtype, op.attrs["dtype"]).item()
    return None


def _round_bf16(value: float) -> float:
    """Round to the nearest bfloat16 (ties to even), the top half of an f32."""
    with np.errstate(over="ignore"):
        single = np.float32(value)
    if not math.isfinite(single):
        return float(single)
    bits = struct.unpack("<I", struct.pack("<f", single))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", bits))[0]
