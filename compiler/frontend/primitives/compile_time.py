"""Primitives that act while the program compiles and leave no op behind: `static_assert`,
`static_print`, and `assume` (a hint; a program that breaks it is wrong, as in Triton)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.ir.core import Value


def static_assert(arith: Arith, cond: object, msg: str = "") -> None:
    if isinstance(cond, Value):
        raise CompileError(
            "ntl.static_assert needs a condition known when the program compiles (sizes, "
            "constexprs, Python values); for a condition on the data, compute it into the output"
        )
    if not cond:
        raise CompileError(f"static_assert failed{': ' + msg if msg else ''}")


def static_print(arith: Arith, *values: object, sep=" ", end="\n", file=None, flush=False) -> None:
    """Python's print, at compile time; a program value prints as its type."""
    shown = [v.type if isinstance(v, Value) else v for v in values]
    print(*shown, sep=sep, end=end, file=file or sys.stdout, flush=flush)


def assume(arith: Arith, cond: object) -> None:
    """A fact the program promises: nothing to compute."""


PRIMITIVES: dict[str, Callable] = {f.__name__: f for f in (static_assert, static_print, assume)}
