"""The kernels that exercise one op, made from its registry entry.

A form is the op with one choice of operand element types and attributes that its type rule
accepts. Operand types are tried as one element type for all operands, and as `i1` first with one
element type for the rest (a selection); attributes come from `ATTRIBUTE_DOMAINS`, by attribute
name. An op is testable when it is pure, has no regions, every attribute it needs has a domain,
and its result is a tile of its operands' shape: the elementwise ops, and scans.

Each kernel loads its operands as 64-element tiles of 1-D buffers under a mask (the tail of a
ragged length), applies the op once and stores the result: `(n + 63) // 64` programs.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from compiler.ir.printer import format_attrs
from compiler.ir.registry import OPS, OpDef
from compiler.ir.type_rules import TypeRuleError
from compiler.ir.types import TileType, value_type

TILE = 64
ELEMENT_TYPES = ("f32", "f16", "f64", "i32", "i1", "u8", "i64")
ATTRIBUTE_DOMAINS: dict[str, tuple] = {
    "pred": ("lt", "le", "gt", "ge", "eq", "ne"),
    "dtype": ELEMENT_TYPES,
    "axis": (0,),
    "reverse": (False, True),
}
_ZERO = {"f32": 0.0, "f16": 0.0, "f64": 0.0, "i32": 0, "i1": False, "u8": 0, "i64": 0}


@dataclass(frozen=True)
class Form:
    op: str
    operands: tuple[str, ...]  # element types
    attrs: tuple[tuple[str, object], ...]
    result: str  # element type

    def __str__(self) -> str:
        attrs = "".join(f" {k}={v}" for k, v in self.attrs)
        return f"{self.op}({', '.join(self.operands)}){attrs} -> {self.result}"

    def kernel_text(self) -> str:
        """The IR of one kernel: load each operand, apply the op, store the result."""
        names = [f"a{i}" for i in range(len(self.operands))]
        params = ", ".join(f"%{n}: buffer<{t}>" for n, t in zip(names, self.operands, strict=True))
        lines = [
            f"kernel @conformance({params}, %out: buffer<{self.result}>, %n: index) "
            f'attributes {{grid = "(n + {TILE - 1}) // {TILE}"}} {{',
            "  %p = index.program_id() {axis = 0} : index",
            f"  %t = arith.constant() {{value = {TILE}}} : index",
            "  %s = arith.mul(%p, %t) : index",
            f"  %r = tile.arange() {{size = {TILE}}} : tile<index[{TILE}]>",
            f"  %b = tile.broadcast(%s) {{shape = [{TILE}]}} : tile<index[{TILE}]>",
            f"  %o = arith.add(%b, %r) : tile<index[{TILE}]>",
            f"  %e = tile.broadcast(%n) {{shape = [{TILE}]}} : tile<index[{TILE}]>",
            f'  %m = arith.cmp(%o, %e) {{pred = "lt"}} : tile<i1[{TILE}]>',
        ]
        for name, dtype in zip(names, self.operands, strict=True):
            other = format_attrs({"other": _ZERO[dtype]})
            lines.append(f"  %v{name} = mem.load(%{name}, %o, %m) {other} : tile<{dtype}[{TILE}]>")
        operands = ", ".join(f"%v{name}" for name in names)
        attrs = f" {format_attrs(dict(self.attrs))}" if self.attrs else ""
        lines.append(f"  %x = {self.op}({operands}){attrs} : tile<{self.result}[{TILE}]>")
        lines += ["  mem.store(%out, %o, %x, %m)", "}"]
        return "\n".join(lines) + "\n"


def testable_ops() -> list[str]:
    return sorted(name for name, definition in OPS.items() if any(forms(definition)))


def forms(definition: OpDef) -> Iterator[Form]:
    """Every form of the op its type rule accepts (nothing when it is not testable)."""
    arity = definition.operands[0]
    if definition.effect != "pure" or definition.regions or definition.infer is None:
        return
    if arity == 0 or any(name not in ATTRIBUTE_DOMAINS for name in definition.attrs):
        return
    domains = [ATTRIBUTE_DOMAINS[name] for name in definition.attrs]
    for values in itertools.product(*domains):
        attrs = dict(zip(definition.attrs, values, strict=True))
        for dtype in ELEMENT_TYPES:
            for operands in {(dtype,) * arity, ("i1",) + (dtype,) * (arity - 1)}:
                result = _result(definition, operands, attrs)
                if result is not None:
                    yield Form(definition.name, operands, tuple(attrs.items()), result)


def _result(definition: OpDef, operands: tuple[str, ...], attrs: dict) -> str | None:
    types = [value_type(dtype, (TILE,)) for dtype in operands]
    try:
        (result,) = definition.infer(types, attrs)
    except (TypeRuleError, KeyError, ValueError):
        return None
    if not isinstance(result, TileType) or result.shape != (TILE,):
        return None
    return result.dtype if result.dtype in _ZERO else None
