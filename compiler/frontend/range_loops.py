"""`range(lower, upper, step)` as the IR's `scf.for`, whose step is positive (the passes read an
induction variable as lying in [lower, upper - 1]): a step below 0, or one known only at run
time, becomes a count of iterations from 0 and `lower + k * step` in the body, as Python counts
them."""

from __future__ import annotations

import functools
from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith, Operand
from compiler.ir.core import Value


def loop_bounds(
    arith: Arith, arguments: list[Operand]
) -> tuple[Operand, Operand, Operand, Callable[[Value], Operand] | None]:
    """`range(*arguments)` as a loop's lower bound, upper bound and positive step, and the loop
    variable as a function of the loop's counter where that is not the counter itself."""
    if not 1 <= len(arguments) <= 3:
        raise CompileError(f"range() takes 1 to 3 arguments, not {len(arguments)}")
    lower, upper, step = {1: (0, *arguments, 1), 2: (*arguments, 1), 3: arguments}[len(arguments)]
    if not isinstance(step, Value):
        if step == 0:
            raise CompileError("range() step must not be zero")
        if step > 0:
            return lower, upper, step, None
    count = trip_count(arith, lower, upper, step)
    return 0, count, 1, functools.partial(induction, arith, lower, step)


def trip_count(arith: Arith, lower: Operand, upper: Operand, step: Operand) -> Operand:
    """How many values `range(lower, upper, step)` gives: 0 for an empty range and, at run time,
    for a step of 0 (Python raises there; a kernel cannot)."""
    up, still = arith.compare("gt", step, 0), arith.compare("eq", step, 0)
    span = arith.where(up, _sub(arith, upper, lower), _sub(arith, lower, upper))
    stride = arith.where(still, 1, arith.where(up, step, _sub(arith, 0, step)))  # never 0
    trips = arith.binary(
        "arith.idiv", arith.binary("arith.add", span, _sub(arith, stride, 1)), stride
    )
    return arith.where(still, 0, arith.where(arith.compare("gt", trips, 0), trips, 0))


def induction(arith: Arith, lower: Operand, step: Operand, count: Value) -> Operand:
    """The loop variable at iteration `count`."""
    return arith.binary("arith.add", lower, arith.binary("arith.mul", count, step))


def _sub(arith: Arith, a: Operand, b: Operand) -> Operand:
    return arith.binary("arith.sub", a, b)
