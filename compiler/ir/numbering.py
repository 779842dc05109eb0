"""When two pure ops compute the same value: the key CSE and the builder's value numbering share.

Two ops are the same when their name, operands (by identity), attributes (by their printed text, so
`0.0` and `-0.0` differ, and `1` and `true`) and result types are.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.ir.core import Value
from compiler.ir.printer import format_attrs
from compiler.ir.types import Type


def value_key(name: str, operands: Sequence[Value], attrs: dict, types: Sequence[Type]) -> tuple:
    """The key of an op `name(operands) {attrs} : types`, made or about to be made."""
    return (
        name,
        tuple(operands),
        format_attrs(attrs) if attrs else "",  # most ops have none
        tuple(types),
    )
