"""Spellings shared by the languages that write TVM's TIR in Python (TVMScript and TileLang):
truncating integer division, `T.max`/`T.min`, `T.Select`, and memory access as buffer indexing,
a masked load through `T.if_then_else` (which reads only where the mask holds) and a masked store
as a one-line `if`."""

from __future__ import annotations

from collections.abc import Callable

from compiler.backends.operators import INFIX, compare, infix
from compiler.backends.target import OpText


def masked_load(typed: str) -> Callable[[OpText], str]:
    """`buffer[offset]`, or `T.if_then_else(mask, buffer[offset], other)` with `other` spelled by
    `typed` (fields dtype, value): how the language writes a typed constant."""

    def load(op: OpText) -> str:
        buffer, offset, *mask = op.args
        element = f"{buffer}[{offset}]"
        if not mask:
            return element
        other = typed.format(dtype=op.fields["result_dtype"], value=op.fields.get("other", "0"))
        return f"T.if_then_else({mask[0]}, {element}, {other})"

    return load


def _store(op: OpText) -> str:
    buffer, offset, value, *mask = op.args
    statement = f"{buffer}[{offset}] = {value}"
    return f"if {mask[0]}: {statement}" if mask else statement


TIR_SPELLING = {
    **infix(INFIX),
    "arith.idiv": "T.truncdiv({0}, {1})",  # TIR's `//` floors; the IR's idiv truncates
    "arith.irem": "T.truncmod({0}, {1})",
    "arith.max": "T.max({0}, {1})",
    "arith.min": "T.min({0}, {1})",
    "arith.neg": "-{0}",
    "arith.cmp": compare,
    "select.where": "T.Select({0}, {1}, {2})",
    "mem.store": _store,
    "mem.read": "{0}[{1}]",
    "mem.write": "{0}[{1}] = {2}",
}
