"""The layout shared by backends whose kernels are decorated Python functions."""

from __future__ import annotations

import json
import keyword
import math

from compiler.backends.syntax import Name, Syntax


def python_literal(value: object) -> str:
    if isinstance(value, Name):
        return str(value)
    if value is None or isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f'float("{value}")'
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    raise TypeError(f"attribute value {value!r} has no Python spelling")


def python_syntax(
    prelude: tuple[str, ...], decorator: str, names_used: frozenset[str], to_value: str = ""
) -> Syntax:
    """`names_used`: the module-level names the emitted source relies on (imports, builtins)."""
    return Syntax(
        prelude=prelude,
        comment="# {text}",
        kernel_open=(decorator, "def {name}({params}):"),
        to_value=to_value,
        indent="    ",
        define="{name} = {expr}",
        assign="{name} = {expr}",
        statement="{expr}",
        for_open="for {iv} in range({lb}, {ub}, {step}):",
        while_open="while {cond}:",
        if_open="if {cond}:",
        else_open="else:",
        empty_block="pass",
        literal=python_literal,
        reserved=frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | names_used,
    )
