"""ssa.pipeline_loops: software-pipeline the loops that copy tiles in and hand them to a block dot.

For a target that pipelines loops (capability `pipeline_stages`: its default number of stages), an
`scf.for` counting 1 at a time whose body only computes scalars, copies boxes into arrays
(`mem.copy_box_in`) and runs block-wide dots on them (`mem.dot`) gets `stages`: the target may
start the copies of the next iterations while this one's dot runs (TileLang's
`T.Pipelined(..., num_stages=...)`: asynchronous copies into as many buffers as stages). The
program's `num_stages` (NineToothed's `make(..., num_stages=)`) wins over the target's default.

Other work in the body (element loops, block-wide reductions) is for the target's pipeliner to
order, where it says it does (capability `pipeline_interleaved`: TileLang's planner issues each
copy right after the last reader of its array and tracks what the rest reads and writes); such a
loop is pipelined too, unless something in it writes global memory, which a copy running ahead
for a later iteration might read. A copy whose box sizes or strides the loop computes leaves the
loop as it is (a pipeliner copies the statement into its prologue, and the view with it): they
must be defined before the loop (and emitters define them plainly, not as variables).

A pipeliner that issues each copy after its array's last reader runs a loop `stages` deep, or one
less where every copy then follows all the other work (as in a loop of copies and a dot). Where
the trip count is known only at run time, a target may bound that depth (capability
`pipeline_runtime_depth`: TileLang 0.1.15 lowers the epilogue of a deeper loop to a wait count it
cannot compile), and the loop gets the most stages within it, with a remark saying so.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel, Operation, TileType, Value
from compiler.ir.memory_rules import BOX_SCALARS, split_box
from compiler.ir.registry import BUFFER_WRITES, lookup
from compiler.passes.base import Pass, PassContext
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.launch_options import chosen_option
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class PipelineLoops(Pass):
    name = "ssa.pipeline_loops"
    category = "hardware-dependent"
    description = "loops that copy boxes in for block dots get `stages` (software pipelining)"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return bool(ctx.require_target(self.name).capability("pipeline_stages"))

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        target = ctx.target
        default = target.capability("pipeline_stages")
        wanted = kernel.attrs.get("num_stages") or chosen_option(
            "num_stages", ctx.options.get("num_stages"), default
        )
        interleaved = bool(target.capability("pipeline_interleaved"))
        depth = target.capability("pipeline_runtime_depth")
        applied = []
        for loop in [op for op in kernel.walk() if op.name == "scf.for"]:
            if not _pipelines(loop, interleaved):
                continue
            stages = wanted
            runtime = not all(isinstance(constant_value(v), int) for v in loop.operands[:2])
            if depth and runtime:
                stages = min(wanted, depth + _copies_last(loop))
                if stages < wanted:
                    ctx.remark(
                        f"a loop whose trip count is known only at run time runs in {stages} "
                        f"stages, not {wanted}: the target pipelines such a loop at most "
                        f"{depth} stage(s) deep (pipeline_runtime_depth)"
                    )
            loop.attrs["stages"] = stages
            applied.append(stages)
            ctx.remark(f"a loop of {len(loop.regions[0].block.ops)} ops runs in {stages} stages")
        if applied:
            kernel.attrs["num_stages"] = max(applied)
        return bool(applied)


def _pipelines(loop: Operation, interleaved: bool) -> bool:
    if constant_value(loop.operands[2]) != 1 or len(loop.operands) > 3:
        return False
    body = loop.regions[0].block.ops
    computed = {v for op in loop.walk() for v in op.results}
    copied = {op.operands[-1] for op in body if op.name == "mem.copy_box_in"}
    dotted = {v for op in body if op.name == "mem.dot" for v in op.operands[:2]}
    if not copied & dotted:
        return False
    if interleaved and not any(op.name in BUFFER_WRITES for op in loop.walk()):
        copies = [op for op in body if op.name == "mem.copy_box_in"]
        return all(_stageable(op, computed) for op in copies)
    return all(_stageable(op, computed) for op in body)


def _stageable(op: Operation, computed: set[Value]) -> bool:
    if op.name == "mem.copy_box_in":
        _, sizes, strides = split_box(op.operands[BOX_SCALARS[op.name]])
        return not computed.intersection((*sizes, *strides))
    if op.name in ("mem.dot", "scf.yield"):
        return True
    return _scalar(op)


def _scalar(op: Operation) -> bool:
    scalar = not any(isinstance(v.type, TileType) for v in (*op.operands, *op.results))
    return scalar and not op.regions and lookup(op.name).effect == "pure"


def _copies_last(loop: Operation) -> bool:
    """Whether, with each copy moved right after the last statement that reads its array, every
    copy follows all the other work of the body (scalar ops aside)."""
    statements = [op for op in loop.regions[0].block.ops if op.name != "scf.yield"]
    statements = [op for op in statements if not _scalar(op)]
    work = [i for i, op in enumerate(statements) if op.name != "mem.copy_box_in"]
    for at, op in enumerate(statements):
        if op.name != "mem.copy_box_in":
            continue
        array = op.operands[-1]
        readers = [i for i in work if any(array in n.operands for n in statements[i].walk())]
        after = max(readers, default=at)
        if work and after < work[-1]:
            return False
    return True
