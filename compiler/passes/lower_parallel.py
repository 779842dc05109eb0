"""ssa.lower_parallel: run each `scf.parallel` the way the target's `parallel` capability says.

- "native": keep it (the target spells it, e.g. TileLang's `T.Parallel`);
- "serial": an `scf.for` over 0 .. n-1;
- "threads": an `scf.for` from this thread's id to n in steps of the thread count (correct for any
  number of threads, one included) between two `mem.barrier`s: the one after lets later code read
  what other threads wrote; the one before keeps the loop from overwriting what code between loops
  may still be reading. A barrier right after another is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel, Operation
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.registry import register
from compiler.passes.rewrite import builder_before

FORMS = ("native", "serial", "threads")


@register
@dataclass(frozen=True)
class LowerParallel(Pass):
    name = "ssa.lower_parallel"
    category = "hardware-dependent"
    description = "scf.parallel kept, made a serial loop, or spread over threads with barriers"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        target = ctx.require_target(self.name)
        form = target.capability("parallel", "native")
        if form not in FORMS:
            raise PassError(
                f"{self.name}: target {target.name} has parallel={form!r}; use one of {FORMS}"
            )
        loops = [op for op in kernel.walk() if op.name == "scf.parallel"]
        if form == "native" or not loops:
            return False
        for op in loops:
            _replace(op, threads=form == "threads")
        return True


def _replace(op: Operation, threads: bool) -> None:
    b = builder_before(op)
    (extent,) = op.operands
    if threads:
        previous = (
            op.parent.ops[op.parent.ops.index(op) - 1] if op.parent.ops[0] is not op else None
        )
        if previous is None or previous.name != "mem.barrier":
            b.create("mem.barrier", [])
        start, step = b.value("index.thread_id"), b.value("index.num_threads")
    else:
        start, step = b.constant(0, "index"), b.constant(1, "index")
    region = op.regions.pop()
    b.create("scf.for", [start, extent, step], {}, [], [region])
    if threads:
        b.create("mem.barrier", [])
    op.parent.ops.remove(op)
