"""Primitives that act while the program compiles and leave no op behind: `static_assert`,
`static_print`, `assume` and `multiple_of`/`max_contiguous`/`max_constancy` (hints; a program
that breaks one is wrong, as in Triton) and
`device_assert` (Python's `assert` in an application), which Triton checks only when asked to;
`device_print` (Python's `print` in an application, as in Triton) is refused with what to use."""

from __future__ import annotations

import sys
from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.foreign_language import DEBUG_VARIABLE, debug_requested
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


def _hint(name: str) -> Callable:
    """`multiple_of`, `max_contiguous`, `max_constancy`: what the program promises of a value's
    elements (a hint to Triton's vectorizer; one that is false makes the program wrong there):
    the value itself."""

    def hint(arith: Arith, input: object, values: object) -> object:  # noqa: A002 - Triton's
        return input

    hint.__name__ = name
    return hint


def device_assert(arith: Arith, cond: object, msg: str = "", mask: object = None) -> None:
    """Triton compiles the check only under its `debug` option (`TRITON_DEBUG=1`), which
    NineToothed never sets otherwise: without it the assertion checks nothing, here as there.
    With it, a condition known now is checked now; one on the data would need a check at run
    time, which this compiler does not compile: refused."""
    if not isinstance(msg, str):
        raise CompileError("device_assert's message must be a string literal")
    if not debug_requested():
        return
    if isinstance(cond, Value) or isinstance(mask, Value):
        raise CompileError(
            f"device_assert (or `assert`) on a run-time value with {DEBUG_VARIABLE} set asks "
            "for a check on the device, which this compiler does not compile; unset it "
            "(Triton's default, under which the assertion checks nothing), or compute the "
            "condition into an output and check it after the launch"
        )
    if not cond and (mask is None or mask):
        raise CompileError(f"assertion failed{': ' + msg if msg else ''}")


def device_print(arith: Arith, prefix: object = "", *args: object, hex: bool = False) -> None:  # noqa: A002 - Triton's name
    """Triton prints at run time, from every program; this compiler has no printing on the
    device: refused, naming what prints here."""
    raise CompileError(
        "ntl.device_print (and `print`, which Triton reads as it) prints values on the device "
        "at run time, which this compiler does not compile; ntl.static_print(...) prints what "
        "is known when the program compiles (shapes, dtypes, constexprs), and a value of the "
        "data can be stored into an output tensor and printed after the launch"
    )


PRIMITIVES: dict[str, Callable] = {
    **{f.__name__: f for f in (static_assert, static_print, assume, device_assert, device_print)},
    **{name: _hint(name) for name in ("multiple_of", "max_contiguous", "max_constancy")},
}
