"""`libdevice`'s hyperbolic, inverse trigonometric and logarithmic functions, composed from the math
ops every target has. Each keeps the accuracy of its type where a textbook formula would not:
small arguments go through `log1p`/`expm1` (so `sinh(1e-30)` is 1e-30 and -0.0 keeps its sign),
large ones are rescaled before they overflow (`cosh(89)` is finite in f32), and the special values
follow C's (`atan2(-0.0, -1)` is -pi, `log1p(inf)` is inf).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.frontend.arith import Arith
from compiler.frontend.primitives.elementwise import _float
from compiler.ir.core import Value

# Past this size e^-|x| is below an ulp of e^|x| in f64 (e^-40): sinh and cosh are e^|x| / 2.
_EXPONENTIAL_ONLY = 20.0
# Past this size x^2 + 1 is x^2 in f64: asinh and acosh are log(2|x|).
_SQUARE_ONLY = 2.0**28


def _neg(arith: Arith, x: Value) -> Value:
    return arith.b.value("arith.neg", x)


def _recip(arith: Arith, x: Value) -> Value:
    return arith.binary("arith.div", 1.0, x)


def _odd(arith: Arith, x: Value, magnitude: Value) -> Value:
    """An odd function from its value at |x|: the sign of x back, and f(+-0) = +-0."""
    negative = arith.where(arith.compare("lt", x, 0.0), _neg(arith, magnitude), magnitude)
    return arith.where(arith.compare("eq", x, 0.0), x, negative)


def _half_exp(arith: Arith, size: Value) -> Value:
    """e^size / 2 as (e^(size/2) / 2) * e^(size/2): finite wherever the result is."""
    root = arith.unary("math.exp", arith.binary("arith.mul", size, 0.5))
    return arith.binary("arith.mul", arith.binary("arith.mul", root, 0.5), root)


def cosh(arith: Arith, arg0: object) -> Value:
    size = arith.unary("math.abs", _float(arith, arg0))
    up = arith.unary("math.exp", size)
    moderate = arith.binary("arith.mul", arith.binary("arith.add", up, _recip(arith, up)), 0.5)
    large = arith.compare("gt", size, _EXPONENTIAL_ONLY)
    return arith.where(large, _half_exp(arith, size), moderate)


def sinh(arith: Arith, arg0: object) -> Value:
    """(t + t / (t + 1)) / 2 with t = expm1(|x|): e^x - e^-x without the cancellation."""
    x = _float(arith, arg0)
    size = arith.unary("math.abs", x)
    t = expm1(arith, size)
    ratio = arith.binary("arith.div", t, arith.binary("arith.add", t, 1.0))
    moderate = arith.binary("arith.mul", arith.binary("arith.add", t, ratio), 0.5)
    large = arith.compare("gt", size, _EXPONENTIAL_ONLY)
    return _odd(arith, x, arith.where(large, _half_exp(arith, size), moderate))


def _log_twice(arith: Arith, x: Value) -> Value:
    return arith.binary("arith.add", arith.unary("math.log", x), math.log(2.0))


def asinh(arith: Arith, arg0: object) -> Value:
    """log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), log(2|x|) where x^2 + 1 is x^2."""
    x = _float(arith, arg0)
    size = arith.unary("math.abs", x)
    square = arith.binary("arith.mul", size, size)
    root = arith.unary("math.sqrt", arith.binary("arith.add", square, 1.0))
    step = arith.binary("arith.div", square, arith.binary("arith.add", root, 1.0))
    moderate = log1p(arith, arith.binary("arith.add", size, step))
    large = arith.compare("gt", size, _SQUARE_ONLY)
    return _odd(arith, x, arith.where(large, _log_twice(arith, size), moderate))


def acosh(arith: Arith, arg0: object) -> Value:
    """log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact) below 2, log(x + sqrt(x^2 - 1)) above,
    log(2x) where x^2 - 1 is x^2; NaN below 1."""
    x = _float(arith, arg0)
    t = arith.binary("arith.sub", x, 1.0)
    near = arith.binary(
        "arith.add", arith.binary("arith.mul", t, 2.0), arith.binary("arith.mul", t, t)
    )
    near = log1p(arith, arith.binary("arith.add", t, arith.unary("math.sqrt", near)))
    square = arith.binary("arith.sub", arith.binary("arith.mul", x, x), 1.0)
    moderate = arith.unary(
        "math.log", arith.binary("arith.add", x, arith.unary("math.sqrt", square))
    )
    moderate = arith.where(arith.compare("gt", x, _SQUARE_ONLY), _log_twice(arith, x), moderate)
    value = arith.where(arith.compare("lt", x, 2.0), near, moderate)
    return arith.where(arith.compare("lt", x, 1.0), math.nan, value)


def atanh(arith: Arith, arg0: object) -> Value:
    """log1p(2x / (1 - x)) / 2: exact for small x, and +-0 kept."""
    x = _float(arith, arg0)
    ratio = arith.binary(
        "arith.div", arith.binary("arith.mul", x, 2.0), arith.binary("arith.sub", 1.0, x)
    )
    return arith.binary("arith.mul", log1p(arith, ratio), 0.5)


def log1p(arith: Arith, arg0: object) -> Value:
    """log(1 + x) without losing small x: log(u) * (x / (u - 1)) with u = 1 + x (Goldberg); x
    itself where u is 1, and inf at inf."""
    x = _float(arith, arg0)
    u = arith.binary("arith.add", x, 1.0)
    scaled = arith.binary(
        "arith.mul",
        arith.unary("math.log", u),
        arith.binary("arith.div", x, arith.binary("arith.sub", u, 1.0)),
    )
    scaled = arith.where(arith.compare("eq", u, math.inf), u, scaled)
    return arith.where(arith.compare("eq", u, 1.0), x, scaled)


def expm1(arith: Arith, arg0: object) -> Value:
    """exp(x) - 1 without losing small x: (u - 1) * x / log(u) with u = exp(x) (Kahan)."""
    x = _float(arith, arg0)
    u = arith.unary("math.exp", x)
    direct = arith.binary("arith.sub", u, 1.0)
    scaled = arith.binary(
        "arith.div", arith.binary("arith.mul", direct, x), arith.unary("math.log", u)
    )
    large = arith.compare("gt", arith.unary("math.abs", x), 0.5)
    return arith.where(arith.compare("eq", u, 1.0), x, arith.where(large, direct, scaled))


def tan(arith: Arith, arg0: object) -> Value:
    x = _float(arith, arg0)
    return arith.binary("arith.div", arith.unary("math.sin", x), arith.unary("math.cos", x))


def asin(arith: Arith, arg0: object) -> Value:
    x = _float(arith, arg0)
    cosine = arith.unary(
        "math.sqrt", arith.binary("arith.sub", 1.0, arith.binary("arith.mul", x, x))
    )
    return _atan2(arith, x, cosine)


def acos(arith: Arith, arg0: object) -> Value:
    return arith.binary("arith.sub", math.pi / 2, asin(arith, arg0))


def _negative(arith: Arith, x: Value) -> Value:
    """Whether x's sign is negative, -0.0 included (1 / -0.0 is -inf)."""
    zero = arith.binary(
        "arith.and", arith.compare("eq", x, 0.0), arith.compare("lt", _recip(arith, x), 0.0)
    )
    return arith.binary("arith.or", arith.compare("lt", x, 0.0), zero)


def _atan2(arith: Arith, y: Value, x: Value) -> Value:
    """C's atan2 from atan(y / x): the quadrant from the signs of x and y (-0.0's too), the
    axes, the four infinite corners, and NaN from a NaN."""
    y, x = arith.unify(y, x)
    below = _negative(arith, y)
    half_turn = arith.where(below, -math.pi, math.pi)
    base = arith.unary("math.atan", arith.binary("arith.div", y, x))
    angle = arith.where(
        arith.compare("lt", x, 0.0), arith.binary("arith.add", base, half_turn), base
    )
    on_y_axis = arith.where(below, -math.pi / 2, math.pi / 2)
    at_origin = arith.where(_negative(arith, x), half_turn, y)  # atan2(+-0, -0) is +-pi
    axis = arith.where(arith.compare("eq", y, 0.0), at_origin, on_y_axis)
    angle = arith.where(arith.compare("eq", x, 0.0), axis, angle)
    infinite = [arith.compare("eq", arith.unary("math.abs", v), math.inf) for v in (x, y)]
    corner = arith.where(arith.compare("gt", x, 0.0), math.pi / 4, 3 * math.pi / 4)
    corner = arith.where(below, _neg(arith, corner), corner)
    angle = arith.where(arith.binary("arith.and", *infinite), corner, angle)
    unordered = arith.binary("arith.or", *(arith.b.value("math.isnan", v) for v in (x, y)))
    return arith.where(unordered, arith.binary("arith.add", x, y), angle)


def atan2(arith: Arith, arg0: object, arg1: object) -> Value:
    return _atan2(arith, _float(arith, arg0), _float(arith, arg1))


def exp10(arith: Arith, arg0: object) -> Value:
    return arith.unary("math.exp2", arith.binary("arith.mul", _float(arith, arg0), math.log2(10.0)))


def log10(arith: Arith, arg0: object) -> Value:
    return arith.binary("arith.mul", arith.unary("math.log2", arg0), math.log10(2.0))


PRIMITIVES: dict[str, Callable] = {
    f.__name__: f
    for f in (cosh, sinh, acosh, asinh, atanh, log1p, expm1, tan, asin, acos, atan2, exp10, log10)
}
