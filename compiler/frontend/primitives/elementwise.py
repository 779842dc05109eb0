"""Elementwise primitives: Triton's math, casts, selection, and `libdevice` functions composed from
the math ops every target has (so no target needs a library of its own; the hyperbolic and inverse
trigonometric ones are in `transcendental.py`)."""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.dsl.language import PropagateNan
from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.dtypes import ir_dtype
from compiler.ir.core import Value
from compiler.ir.types import BIT_WIDTHS, is_float


def _unary(op_name: str) -> Callable:
    def lower(arith: Arith, x: object) -> Value:
        return arith.unary(op_name, x)

    return lower


def _binary(op_name: str) -> Callable:
    def lower(arith: Arith, x: object, y: object, propagate_nan: object = None) -> object:
        return _nan_if_any(arith, arith.binary(op_name, x, y), (x, y), propagate_nan)

    return lower


def _wrapping(op_name: str) -> Callable:
    """`ntl.add`/`sub`/`mul`: the operator's op. `sanitize_overflow` asks Triton to check signed
    overflow under its debug option only; integers wrap here as there otherwise."""

    def lower(arith: Arith, x: object, y: object, sanitize_overflow: object = True) -> object:
        return arith.binary(op_name, x, y)

    return lower


def to_tensor(arith: Arith, x: object) -> Value:
    """A Python number as a value of the program (Triton's dtype for it: i32 if it fits, f32)."""
    return arith.as_value(x)


def _nan_if_any(arith: Arith, result: object, operands: tuple, propagate_nan: object) -> object:
    """`maximum`, `minimum` and `clamp` give the other operand for a NaN one (the IR's maxNum);
    `propagate_nan=PropagateNan.ALL` asks for NaN wherever an operand is NaN instead."""
    if propagate_nan != PropagateNan.ALL or not isinstance(result, Value):
        return result
    if not is_float(result.type.dtype):
        return result
    values = [arith.cast(arith.as_value(v, result), result.type.dtype) for v in operands]
    nan = arith.b.value("math.isnan", values[0])
    total = values[0]
    for v in values[1:]:
        nan = arith.binary("arith.or", nan, arith.b.value("math.isnan", v))
        total = arith.binary("arith.add", total, v)  # NaN wherever one of them is
    return arith.where(nan, total, result)


def _float(arith: Arith, x: object) -> Value:
    """`x` as a floating-point value (integers widen to f32, as Triton's math does)."""
    x = arith.as_value(x)
    return x if is_float(x.type.dtype) else arith.cast(x, "f32")


def cast(
    arith: Arith, input: object, dtype: str, fp_downcast_rounding: object = None, bitcast=False
) -> Value:
    x, target = arith.as_value(input), ir_dtype(dtype)
    if not bitcast or x.type.dtype == target:
        return arith.cast(x, target)
    source = x.type.dtype
    if BIT_WIDTHS.get(source) != BIT_WIDTHS.get(target) or source == "i1":
        raise CompileError(
            f"ntl.cast(..., bitcast=True) from {source} to {target}: a bitcast keeps the bits, so "
            "both dtypes need the same width; cast by value, or bitcast to a type of that width"
        )
    return arith.b.value("arith.bitcast", x, dtype=target)


def abs(arith: Arith, x: object) -> Value:  # noqa: A001 - Triton's name
    """`|x|` in `x`'s own type, as Triton's: integers stay integers (|INT_MIN| wraps to itself,
    unsigned and bool values are their own), floats clear the sign bit."""
    x = arith.as_value(x)
    dtype = x.type.dtype
    if is_float(dtype):
        return arith.unary("math.abs", x)
    if dtype == "i1" or dtype.startswith("u"):
        return x
    return arith.where(arith.compare("lt", x, 0), arith.b.value("arith.neg", x), x)


def where(arith: Arith, condition: object, x: object, y: object) -> object:
    return arith.where(condition, x, y)


def sigmoid(arith: Arith, x: object) -> Value:
    e = arith.unary("math.exp", arith.binary("arith.sub", 0.0, _float(arith, x)))
    return arith.binary("arith.div", 1.0, arith.binary("arith.add", 1.0, e))


def clamp(arith: Arith, x: object, min: object, max: object, propagate_nan: object = None):
    clamped = arith.binary("arith.min", arith.binary("arith.max", x, min), max)
    return _nan_if_any(arith, clamped, (x, min, max), propagate_nan)


def fma(arith: Arith, x: object, y: object, z: object) -> object:
    """x * y + z rounded once, as Triton's. A float narrower than 32 bits computes in f64, where
    the product is exact and the sum rounds harmlessly before the one rounding back (what
    Triton's interpreter does); one narrower via f32 would round twice."""
    x, y, z = (_float(arith, v) for v in arith.unify(x, y, z))
    dtype = x.type.dtype
    if dtype in ("f32", "f64"):
        return arith.b.value("math.fma", x, y, z)
    wide = [arith.cast(v, "f64") for v in (x, y, z)]
    product = arith.binary("arith.mul", wide[0], wide[1])
    return arith.cast(arith.binary("arith.add", product, wide[2]), dtype)


def cdiv(arith: Arith, x: object, div: object) -> object:
    return arith.binary(
        "arith.idiv", arith.binary("arith.add", x, arith.binary("arith.sub", div, 1)), div
    )


def fdiv(arith: Arith, x: object, y: object, ieee_rounding=False, approx=False) -> object:
    """Division rounded to nearest: what `ieee_rounding` asks, and within what the approximate
    forms allow."""
    return arith.binary("arith.div", x, y)


def div_rn(arith: Arith, x: object, y: object) -> object:
    return arith.binary("arith.div", x, y)


def umulhi(arith: Arith, x: object, y: object) -> Value:
    """The high half of the double-width product of `x` and `y`'s bits taken as unsigned, in
    `x`'s dtype (Triton's `umulhi`): from one u64 product up to 32 bits, from four 32 x 32
    products of the halves for 64 (no backend has a 128-bit integer for every target)."""
    x, y = arith.unify(x, y)
    dtype = x.type.dtype
    width = BIT_WIDTHS.get(dtype, 0)
    if is_float(dtype) or dtype == "i1":
        raise CompileError(
            f"ntl.umulhi on {dtype}: it takes integers; cast floats or bools to an integer type"
        )
    unsigned = f"u{width}"
    x, y = (
        arith.b.value("arith.bitcast", v, dtype=unsigned) if dtype != unsigned else v
        for v in (x, y)
    )
    if width == 64:
        high = _umulhi_64(arith, x, y)
    else:
        wide = arith.binary("arith.mul", arith.cast(x, "u64"), arith.cast(y, "u64"))
        high = arith.cast(arith.binary("arith.shr", wide, width), unsigned)
    return high if dtype == unsigned else arith.b.value("arith.bitcast", high, dtype=dtype)


def _umulhi_64(arith: Arith, x: Value, y: Value) -> Value:
    """The high 64 bits of the u64 product x * y, schoolbook on 32-bit halves: no partial
    product or sum below overflows a u64."""

    def halves(v: Value) -> tuple[Value, Value]:
        return arith.binary("arith.and", v, _LOW_32), arith.binary("arith.shr", v, 32)

    (x_low, x_high), (y_low, y_high) = halves(x), halves(y)
    middle = arith.binary("arith.shr", arith.binary("arith.mul", x_low, y_low), 32)
    cross = [arith.binary("arith.mul", a, b) for a, b in ((x_low, y_high), (x_high, y_low))]
    high = arith.binary("arith.mul", x_high, y_high)
    for product in cross:
        product_low, product_high = halves(product)
        middle = arith.binary("arith.add", middle, product_low)
        high = arith.binary("arith.add", high, product_high)
    return arith.binary("arith.add", high, arith.binary("arith.shr", middle, 32))


_LOW_32 = 2**32 - 1


def trunc(arith: Arith, arg0: object) -> Value:
    x = _float(arith, arg0)
    down, up = arith.unary("math.floor", x), arith.unary("math.ceil", x)
    return arith.where(arith.compare("lt", x, 0.0), up, down)


def _round_from(arith: Arith, x: Value, away: Callable[[Value, Value], Value]) -> Value:
    """trunc(x) plus a step of sign(x) where `away(|x - trunc(x)|, trunc(x))` says so; exact,
    since x - trunc(x) is representable."""
    whole = trunc(arith, x)
    rest = arith.unary("math.abs", arith.binary("arith.sub", x, whole))
    step = arith.where(arith.compare("lt", x, 0.0), -1.0, 1.0)
    return arith.where(away(rest, whole), arith.binary("arith.add", whole, step), whole)


def round(arith: Arith, arg0: object) -> Value:  # noqa: A001 - libdevice's name
    """Halves away from zero, as libdevice's `round`."""
    return _round_from(arith, _float(arith, arg0), lambda rest, _: arith.compare("ge", rest, 0.5))


def nearbyint(arith: Arith, arg0: object) -> Value:
    """Halves to even, as `rint`/`nearbyint` in the default rounding mode."""

    def away(rest: Value, whole: Value) -> Value:
        half = arith.compare("eq", rest, 0.5)
        odd = arith.compare(
            "ne",
            arith.binary(
                "arith.sub",
                whole,
                arith.binary(
                    "arith.mul",
                    arith.unary("math.floor", arith.binary("arith.mul", whole, 0.5)),
                    2.0,
                ),
            ),
            0.0,
        )
        return arith.binary(
            "arith.or", arith.compare("gt", rest, 0.5), arith.binary("arith.and", half, odd)
        )

    return _round_from(arith, _float(arith, arg0), away)


def isnan(arith: Arith, arg0: object) -> Value:
    return arith.b.value("math.isnan", _float(arith, arg0))


def isinf(arith: Arith, arg0: object) -> Value:
    return arith.compare("eq", arith.unary("math.abs", arg0), math.inf)


def pow(arith: Arith, arg0: object, arg1: object) -> Value:  # noqa: A001 - libdevice's name
    base = _float(arith, arg0)
    return arith.b.value(
        "math.pow",
        *arith.unify(base, _float(arith, arg1) if isinstance(arg1, Value) else float(arg1)),
    )


PRIMITIVES: dict[str, Callable] = {
    **{
        name: _unary(f"math.{name}")
        for name in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos")
    },
    **{name: _unary(f"math.{name}") for name in ("floor", "ceil", "erf", "tanh", "atan")},
    "fabs": _unary("math.abs"),
    "sqrt_rn": _unary("math.sqrt"),
    **{name: _wrapping(f"arith.{name}") for name in ("add", "sub", "mul")},
    "maximum": _binary("arith.max"),
    "minimum": _binary("arith.min"),
    "fmax": _binary("arith.max"),
    "fmin": _binary("arith.min"),
    **{
        f.__name__: f
        for f in (
            abs,
            cast,
            to_tensor,
            where,
            sigmoid,
            clamp,
            fma,
            cdiv,
            trunc,
            round,
        )
    },
    **{f.__name__: f for f in (nearbyint, isnan, isinf, pow, fdiv, div_rn, umulhi)},
    "rint": nearbyint,
}
