"""ssa.pipeline_loops: software-pipeline the loops that copy tiles in and hand them to a block dot.

For a target that pipelines loops (capability `pipeline_stages`: its default number of stages), an
`scf.for` counting 1 at a time whose body only computes scalars, copies boxes into arrays
(`mem.copy_box_in`) and runs block-wide dots on them (`mem.dot`) gets `stages`: the target may
start the copies of the next iterations while this one's dot runs (TileLang's
`T.Pipelined(..., num_stages=...)`: asynchronous copies into as many buffers as stages). The
program's `num_stages` (NineToothed's `make(..., num_stages=)`) wins over the target's default.
Anything else in the body (element loops, stores, branches) leaves the loop as it is: which
statements may overlap is then not for this pass to decide. So does a copy whose box sizes or
strides the loop computes (a pipeliner copies the statement into its prologue, and the view with
it): they must be defined before the loop (and emitters define them plainly, not as variables).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel, Operation, TileType, Value
from compiler.ir.registry import BOX_SCALARS, lookup, split_box
from compiler.passes.base import Pass, PassContext
from compiler.passes.constants import constant_value
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class PipelineLoops(Pass):
    name = "ssa.pipeline_loops"
    category = "hardware-dependent"
    description = "loops that copy boxes in for block dots get `stages` (software pipelining)"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        default = ctx.require_target(self.name).capability("pipeline_stages")
        if not default:
            return False
        stages = kernel.attrs.get("num_stages") or ctx.options.get("num_stages") or default
        loops = [op for op in kernel.walk() if op.name == "scf.for" and _pipelines(op)]
        for loop in loops:
            loop.attrs["stages"] = stages
            ctx.remark(f"a loop of {len(loop.regions[0].block.ops)} ops runs in {stages} stages")
        if loops:
            kernel.attrs["num_stages"] = stages
        return bool(loops)


def _pipelines(loop: Operation) -> bool:
    if constant_value(loop.operands[2]) != 1 or len(loop.operands) > 3:
        return False
    body = loop.regions[0].block.ops
    computed = {v for op in loop.walk() for v in op.results}
    copied = {op.operands[-1] for op in body if op.name == "mem.copy_box_in"}
    dotted = {v for op in body if op.name == "mem.dot" for v in op.operands[:2]}
    return bool(copied & dotted) and all(_stageable(op, computed) for op in body)


def _stageable(op: Operation, computed: set[Value]) -> bool:
    if op.name == "mem.copy_box_in":
        _, sizes, strides = split_box(op.operands[BOX_SCALARS[op.name]])
        return not computed.intersection((*sizes, *strides))
    if op.name in ("mem.dot", "scf.yield"):
        return True
    scalar = not any(isinstance(v.type, TileType) for v in (*op.operands, *op.results))
    return scalar and not op.regions and lookup(op.name).effect == "pure"
