"""ssa.decompose_linalg: `linalg.dot` becomes broadcast multiply + `reduce.sum` when the target
does not accept it natively."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel
from compiler.passes.base import Pass, PassContext
from compiler.passes.helpers.decompositions import decompose
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class DecomposeLinalg(Pass):
    name = "ssa.decompose_linalg"
    category = "hardware-independent"
    description = "rewrite linalg.dot as expand_dims/broadcast, multiply and reduce.sum if illegal"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return "linalg.dot" not in ctx.require_target(self.name).legal_ops

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        dots = [op for op in kernel.walk() if op.name == "linalg.dot"]
        for op in dots:
            decompose(kernel, op)
        return bool(dots)
