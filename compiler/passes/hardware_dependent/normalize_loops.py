"""ssa.normalize_loops: for a target whose loops count 0, 1, 2, ... (capability
`unit_step_loops`), `scf.for(lb, ub, step)` with a step other than the constant 1 becomes
`scf.for(0, (ub - lb + step - 1) // step, 1)` whose body computes `lb + k * step` first."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Builder, Kernel, Operation, ScalarType, Value
from compiler.passes.base import Pass, PassContext
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.rewrite import builder_before
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class NormalizeLoops(Pass):
    name = "ssa.normalize_loops"
    category = "hardware-dependent"
    description = "loops of step 1 from 0 where the target's loops only count"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return bool(ctx.require_target(self.name).capability("unit_step_loops", False))

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        loops = [op for op in kernel.walk() if op.name == "scf.for" and not _unit(op)]
        for op in loops:
            _normalize(kernel, op)
        return bool(loops)


def _unit(op: Operation) -> bool:
    return constant_value(op.operands[2]) == 1


def _normalize(kernel: Kernel, op: Operation) -> None:
    b = builder_before(op)
    lb, ub, step = op.operands[:3]
    one = b.constant(1, "index")
    span = b.value("arith.add", b.value("arith.sub", ub, lb), b.value("arith.sub", step, one))
    op.operands[:3] = [b.constant(0, "index"), b.value("arith.idiv", span, step), one]
    block = op.regions[0].block
    old, count = block.args[0], Value(ScalarType("index"), owner=block)
    block.args[0] = count
    inner = Builder(block)
    inner.index = 0
    iv = inner.value("arith.add", lb, inner.value("arith.mul", count, step))
    kernel.replace_uses(old, iv)
