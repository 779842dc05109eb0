"""`libdevice`'s Euclidean norms (`hypot`, `norm3d`, `norm4d` and their reciprocals), composed
from the math ops every target has.

A norm is scaled by its largest component before squaring, so `hypot(3e30, 4e30)` is 5e30 where
the sum of squares would overflow, and `hypot(3e-30, 4e-30)` keeps its digits where it would
underflow; an infinite component makes it infinite even beside a NaN (C's rule).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.frontend.arith import Arith
from compiler.frontend.primitives.elementwise import _float
from compiler.frontend.primitives.transcendental import _recip
from compiler.ir.core import Value


def _norm(arith: Arith, components: tuple[object, ...]) -> Value:
    values = arith.unify(*(_float(arith, c) for c in components))
    sizes = [arith.unary("math.abs", v) for v in values]
    largest = sizes[0]
    for size in sizes[1:]:
        largest = arith.where(arith.compare("gt", size, largest), size, largest)
    # a zero largest component: divide by one instead, the sum is then zero
    scale = arith.where(arith.compare("eq", largest, 0.0), 1.0, largest)
    total = None
    for size in sizes:
        ratio = arith.binary("arith.div", size, scale)
        square = arith.binary("arith.mul", ratio, ratio)
        total = square if total is None else arith.binary("arith.add", total, square)
    norm = arith.binary("arith.mul", scale, arith.unary("math.sqrt", total))
    unordered = [arith.b.value("math.isnan", v) for v in values]
    infinite = [arith.compare("eq", size, math.inf) for size in sizes]
    norm = arith.where(_any(arith, unordered), math.nan, norm)
    return arith.where(_any(arith, infinite), math.inf, norm)


def _any(arith: Arith, conditions: list[Value]) -> Value:
    result = conditions[0]
    for condition in conditions[1:]:
        result = arith.binary("arith.or", result, condition)
    return result


def hypot(arith: Arith, arg0: object, arg1: object) -> Value:
    return _norm(arith, (arg0, arg1))


def rhypot(arith: Arith, arg0: object, arg1: object) -> Value:
    return _recip(arith, _norm(arith, (arg0, arg1)))


def norm3d(arith: Arith, arg0: object, arg1: object, arg2: object) -> Value:
    return _norm(arith, (arg0, arg1, arg2))


def norm4d(arith: Arith, arg0: object, arg1: object, arg2: object, arg3: object) -> Value:
    return _norm(arith, (arg0, arg1, arg2, arg3))


def rnorm3d(arith: Arith, arg0: object, arg1: object, arg2: object) -> Value:
    return _recip(arith, _norm(arith, (arg0, arg1, arg2)))


def rnorm4d(arith: Arith, arg0: object, arg1: object, arg2: object, arg3: object) -> Value:
    return _recip(arith, _norm(arith, (arg0, arg1, arg2, arg3)))


PRIMITIVES: dict[str, Callable] = {
    f.__name__: f for f in (hypot, rhypot, norm3d, norm4d, rnorm3d, rnorm4d)
}
