"""ssa.wrap_grid: for a target whose program ids are a loop (capability `program_ids` "loop"), the
kernel body becomes the region of `scf.grid(count)`; `index.program_id` reads the region's index.

The count is the kernel's `grid` attribute (an expression over argument names and meta symbols:
ints, + - * // % and parentheses) built as index arithmetic. Its `//` divides non-negative sizes,
where truncation (the IR's `arith.idiv`) and floor agree.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from compiler.ir import Block, Builder, Kernel, Region, ScalarType, Value
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.helpers.rewrite import replace_op
from compiler.passes.registry import register

_ARITH = {ast.Add: "arith.add", ast.Sub: "arith.sub", ast.Mult: "arith.mul"}
_ARITH |= {ast.FloorDiv: "arith.idiv", ast.Mod: "arith.irem"}


@register
@dataclass(frozen=True)
class WrapGrid(Pass):
    name = "ssa.wrap_grid"
    category = "hardware-dependent"
    description = "program ids as a loop: the body becomes the region of scf.grid(count)"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return ctx.require_target(self.name).capability("program_ids", "launch") == "loop"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        pids = [op for op in kernel.walk() if op.name == "index.program_id"]
        if any(op.attrs["axis"] != 0 for op in pids):
            raise PassError(
                f"{self.name}: @{kernel.name} reads a program id on an axis other than 0; the "
                "grid is one-dimensional (the frontend flattens program ids)"
            )
        body = kernel.body
        kernel.body = Block()
        b = Builder(kernel.body)
        count = self.expression(kernel, b, kernel.attrs["grid"])
        pid = Value(ScalarType("index"))
        inner = Block([pid], list(body.ops))
        b.create("scf.grid", [count], {}, [], [Region([inner])])
        Builder(inner).create("scf.yield", [])
        for op in pids:
            replace_op(kernel, op, [pid])
        return True

    def expression(self, kernel: Kernel, b: Builder, text: str) -> Value:
        names = {arg.name: arg for arg in kernel.args}
        schedule = dict(kernel.attrs.get("schedule") or [])

        def build(node: ast.AST) -> Value:
            if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
                return b.value(_ARITH[type(node.op)], build(node.left), build(node.right))
            if isinstance(node, ast.Constant) and type(node.value) is int:
                return b.constant(node.value, "index")
            if isinstance(node, ast.Name) and node.id in names:
                return names[node.id]
            if isinstance(node, ast.Name) and node.id in schedule:
                return b.constant(schedule[node.id], "index")
            raise PassError(
                f"{self.name}: @{kernel.name} grid {text!r}: cannot build "
                f"{ast.unparse(node)!r}; use index arguments, meta symbols, ints, + - * // %"
            )

        return build(ast.parse(text, mode="eval").body)
