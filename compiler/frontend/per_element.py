"""Control flow of a function mapped over elements (`ntl.map_elementwise`): if-conversion.

The function runs once on whole tiles. An `if` on a per-element condition runs both branches,
each under its predicate (the elements for which it runs), and every variable either assigns
becomes `select.where(condition, then, else)`. A `while` loops as long as any element's condition
holds, its body an `if` on that condition. A `return` under a predicate records its value for
the elements still running and marks them returned; the statements after it go on for the others.
A branch an element does not take still computes on it, harmlessly: nothing it computes is kept,
a division by zero is guarded on every backend, and such a function touches no memory (its
arguments are values: a tile's elements, never a pointer or a parameter to store to).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.primitives.along_axis import _reduce
from compiler.ir.core import Value

if TYPE_CHECKING:
    from compiler.frontend.context import KernelContext


class FunctionLowerer(Protocol):
    """What if-conversion reads and sets of `compiler/frontend/statements.py`'s lowerer."""

    ctx: KernelContext
    env: dict[str, object]
    predicate: Value | None  # the elements the statements run for (None: all)
    done: Value | None  # the elements that have returned (None: none)
    returned: object
    has_returned: bool

    def statements(self, nodes: list[ast.stmt]) -> None: ...


_UNSET = object()


def branch(lowerer: FunctionLowerer, node: ast.If, test: Value) -> None:
    """`if test: ... else: ...` on a per-element `test`, both branches run under predicates."""
    arith = lowerer.ctx.arith
    test = arith.cast(test, "i1")
    outer, before = lowerer.predicate, dict(lowerer.env)
    sides = []
    for statements, condition in ((node.body, test), (node.orelse, _not(arith, test))):
        lowerer.predicate = _and(arith, outer, condition)
        lowerer.env = dict(before)
        lowerer.statements(statements)
        sides.append(lowerer.env)
    lowerer.predicate = outer
    then_env, else_env = sides
    lowerer.env = {
        name: _merge(arith, test, then_env.get(name, _UNSET), else_env.get(name, _UNSET), name)
        for name in {**then_env, **else_env}
    }


def returns(lowerer: FunctionLowerer, value: object) -> None:
    """`return value` for the elements still running under the current predicate."""
    arith = lowerer.ctx.arith
    done = lowerer.done
    running = _and(arith, lowerer.predicate, None if done is None else _not(arith, done))
    if done is None:
        lowerer.returned, lowerer.done = value, running
    else:
        lowerer.returned = _merge(arith, running, value, lowerer.returned, "the returned value")
        lowerer.done = arith.binary("arith.or", done, running)
    lowerer.has_returned = lowerer.predicate is None  # every element has returned


def loop(node: ast.While) -> list[ast.stmt]:
    """A per-element `while`'s body: `if test: body`, so an element whose test fails keeps its
    values while the loop runs on for the others (its condition: any element's test)."""
    return [ast.copy_location(ast.If(test=node.test, body=node.body, orelse=[]), node)]


def any_element(arith: Arith, test: Value) -> Value:
    """Whether the test holds for any element of the tile: a scalar."""
    return arith.compare("ne", _reduce(arith, "reduce.max", arith.cast(test, "i8"), None, False), 0)


@contextmanager
def mapped(ctx: KernelContext) -> Iterator[None]:
    """Functions lowered inside run per element: their conditions are per element."""
    saved, ctx.per_element = ctx.per_element, True
    try:
        yield
    finally:
        ctx.per_element = saved


def _merge(arith: Arith, condition: Value, a: object, b: object, name: str) -> object:
    """`a` where `condition` holds, else `b` (one that is unset: the other)."""
    if b is _UNSET or a is b:
        return a
    if a is _UNSET:
        return b
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(_merge(arith, condition, x, y, name) for x, y in zip(a, b, strict=True))
    if _is_number(a) and _is_number(b):
        return arith.where(condition, a, b)
    raise CompileError(
        f"{name} is {_describe(a)} on one side of a per-element condition and {_describe(b)} on "
        "the other; give it values of one kind (tiles or numbers) on both"
    )


def _is_number(value: object) -> bool:
    return isinstance(value, Value | int | float)  # bools are ints


def _describe(value: object) -> str:
    return "a tuple" if isinstance(value, tuple) else f"a {type(value).__name__}"


def _not(arith: Arith, value: Value) -> Value:
    return arith.b.value("arith.not", value)


def _and(arith: Arith, a: Value | None, b: Value | None) -> Value | None:
    if a is None or b is None:
        return b if a is None else a
    return arith.binary("arith.and", a, b)
