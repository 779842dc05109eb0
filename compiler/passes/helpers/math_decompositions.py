"""Math functions from the arithmetic and math ops every target has, for targets without them.

`Ops` builds elementwise expressions over one operand's type so each function reads as its
formula. Accuracy: that of the operand's type: f64 operands take Cephes' double `atan` (a rational
approximation) and a longer series of tanh, within a few ulps of libm; the others single precision
(Cephes' `atanf`, a short series), which is what f16/bf16/f32 programs need.
"""

from __future__ import annotations

import math

from compiler.ir import Builder, Operation, Value
from compiler.ir.types import BIT_WIDTHS
from compiler.passes.helpers.constants import make_constant


class Ops:
    """Elementwise ops on values shaped like `like`; Python numbers become constants."""

    def __init__(self, builder: Builder, like: Value):
        self.b, self.like = builder, like

    def v(self, x: Value | float) -> Value:
        return x if isinstance(x, Value) else make_constant(self.b, x, self.like.type)

    def op(self, name: str, *xs: Value | float) -> Value:
        return self.b.value(name, *(self.v(x) for x in xs))

    def add(self, a, b):
        return self.op("arith.add", a, b)

    def sub(self, a, b):
        return self.op("arith.sub", a, b)

    def mul(self, a, b):
        return self.op("arith.mul", a, b)

    def div(self, a, b):
        return self.op("arith.div", a, b)

    def cmp(self, pred: str, a, b) -> Value:
        return self.b.value("arith.cmp", self.v(a), self.v(b), pred=pred)

    def where(self, cond: Value, a, b) -> Value:
        return self.op("select.where", cond, a, b)

    def both(self, a: Value, b: Value) -> Value:
        return self.b.value("arith.and", a, b)

    def either(self, a: Value, b: Value) -> Value:
        return self.b.value("arith.or", a, b)

    def poly(self, x: Value, coefficients: list[float]) -> Value:
        """Horner: coefficients from the highest power down."""
        result = self.v(coefficients[0])
        for c in coefficients[1:]:
            result = self.add(self.mul(result, x), c)
        return result


# tanh's Taylor series in x^2, highest power first: to x^5 for single precision, x^15 for double
# (below |x| = 1/16 the next term is under half an ulp).
_TANH_SERIES = {
    "single": [2 / 15, -1 / 3, 1.0],
    "f64": [-929569 / 638512875, 21844 / 6081075, -1382 / 155925, 62 / 2835, -17 / 315]
    + [2 / 15, -1 / 3, 1.0],
}
# Cephes' atan: where |x| is reduced around pi/4 (tan(pi/8) for atanf, 0.66 for atan), the
# approximation of atan(r) / r - 1 as z * P(z) / Q(z) in z = r^2 (atanf: Q = 1), and the low part
# of pi/2 added back (pi/4 takes half).
_ATAN = {
    "single": (
        0.4142135623730950,
        [8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1],
        [1.0],
        0.0,
    ),
    "f64": (
        0.66,
        [-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1]
        + [-1.228866684490136173410e2, -6.485021904942025371773e1],
        [1.0, 2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2]
        + [4.853903996359136964868e2, 1.945506571482613964425e2],
        6.123233995736765886130e-17,
    ),
}


def _precision(value: Value) -> str:
    return "f64" if value.type.dtype == "f64" else "single"


def tanh(b: Builder, op: Operation) -> Value:
    """sign(x) (1 - t) / (1 + t) with t = exp(-2|x|); a series near 0, where 1 - t cancels."""
    (x,) = op.operands
    o = Ops(b, x)
    size = o.op("math.abs", x)
    t = o.op("math.exp", o.mul(size, -2.0))
    far = o.div(o.sub(1.0, t), o.add(1.0, t))
    far = o.where(o.cmp("lt", x, 0.0), o.op("arith.neg", far), far)
    squared = o.mul(x, x)
    near = o.mul(x, o.poly(squared, _TANH_SERIES[_precision(x)]))
    return o.where(o.cmp("lt", size, 0.0625), near, far)


def atan(b: Builder, op: Operation) -> Value:
    """Cephes: |x| reduced around 0, pi/4 or pi/2 (to r = -1/|x| past tan(3pi/8)), then
    atan(r) = r + r * (approximation in r^2)."""
    (x,) = op.operands
    o = Ops(b, x)
    middle_from, numerator, denominator, low_part = _ATAN[_precision(x)]
    size = o.op("math.abs", x)
    high = o.cmp("gt", size, 2.414213562373095)
    middle = o.both(o.cmp("gt", size, middle_from), o.op("arith.not", high))
    reduced = o.where(
        high, o.div(-1.0, size), o.where(middle, o.div(o.sub(size, 1.0), o.add(size, 1.0)), size)
    )
    base = o.where(high, math.pi / 2, o.where(middle, math.pi / 4, 0.0))
    if low_part:
        base = o.add(base, o.where(high, low_part, o.where(middle, low_part / 2, 0.0)))
    z = o.mul(reduced, reduced)
    ratio = o.mul(o.poly(z, numerator), z)
    if denominator != [1.0]:
        ratio = o.div(ratio, o.poly(z, denominator))
    magnitude = o.add(base, o.add(o.mul(ratio, reduced), reduced))
    signed = o.where(o.cmp("lt", x, 0.0), o.op("arith.neg", magnitude), magnitude)
    return o.where(o.cmp("eq", x, 0.0), x, signed)  # atan(-0.0) is -0.0


def pow(b: Builder, op: Operation) -> Value:  # noqa: A001 - the op's name
    """C's pow from exp2 and log2: |b|^e in f64 (exact enough for f32 results), the sign of a
    negative base (-0.0 included) for odd integral e, NaN for a finite negative base and a
    fractional e, and pow(x, 0) = pow(1, y) = pow(-1, +-inf) = 1."""
    base, exponent = op.operands
    o = Ops(b, base)
    dtype = base.type.dtype
    wide = "f64" if dtype in ("f16", "bf16", "f32") else dtype
    w = Ops(b, b.value("arith.cast", base, dtype=wide) if wide != dtype else base)
    e_wide = b.value("arith.cast", exponent, dtype=wide) if wide != dtype else exponent
    magnitude = w.op("math.exp2", w.mul(e_wide, w.op("math.log2", w.op("math.abs", w.like))))
    magnitude = b.value("arith.cast", magnitude, dtype=dtype) if wide != dtype else magnitude
    integral = o.cmp("eq", o.op("math.floor", exponent), exponent)
    half = o.op("math.floor", o.mul(exponent, 0.5))
    odd = o.both(integral, o.cmp("ne", o.mul(half, 2.0), exponent))
    negative = o.cmp("lt", base, 0.0)
    # the sign an odd power keeps is the base's sign bit: pow(-0.0, -1.0) is -inf
    bits = b.value("arith.bitcast", base, dtype=f"i{BIT_WIDTHS[dtype]}")
    sign = b.value("arith.cmp", bits, b.constant(0, bits.type.dtype, bits.type.shape), pred="lt")
    signed = o.where(o.both(sign, odd), o.op("arith.neg", magnitude), magnitude)
    finite_negative = o.both(negative, o.cmp("gt", base, -math.inf))  # pow(-inf, 0.5) is inf
    fractional = o.both(finite_negative, o.op("arith.not", integral))
    result = o.where(fractional, math.nan, signed)
    one = o.either(o.cmp("eq", exponent, 0.0), o.cmp("eq", base, 1.0))
    # pow(-1, +-inf) is 1 too, where exp2 would see inf * log2(1) = NaN
    unit = o.cmp("eq", o.op("math.abs", base), 1.0)
    one = o.either(one, o.both(unit, o.cmp("eq", o.op("math.abs", exponent), math.inf)))
    return o.where(one, 1.0, result)


ELEMENTWISE = ("arith.constant", "arith.add", "arith.sub", "arith.mul", "arith.div", "arith.neg")
SELECTION = ("arith.cmp", "select.where", "arith.and", "arith.or", "arith.not", "math.abs")
# op -> (its expansion, the ops that produces)
EXPANSIONS = {
    "math.tanh": (tanh, (*ELEMENTWISE, *SELECTION, "math.exp")),
    "math.atan": (atan, (*ELEMENTWISE, *SELECTION)),
    "math.pow": (
        pow,
        (*ELEMENTWISE, *SELECTION, "arith.cast", "arith.bitcast", "math.exp2", "math.log2")
        + ("math.floor",),
    ),
}
