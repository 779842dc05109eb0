"""Dead-code elimination: ops without effects whose results nobody reads, recursively.

Removable: pure ops and loads with unused results, and `scf.for`/`scf.if` whose results are unused
and whose regions hold only removable ops. A loop-carried value of `scf.for` goes when its result is
unused and its block argument is read by nothing but the yield that passes it on. An `scf.for` whose
constant bounds run it zero times goes whatever its body does: its results are its initial values
(the loop forms of reductions leave such loops where a reduced axis has one element).
"""

from __future__ import annotations

from compiler.ir import Block, Kernel, Operation, lookup
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.rewrite import replace_op


def dce(kernel: Kernel) -> bool:
    changed = _drop_zero_trip_loops(kernel)
    uses = kernel.uses()
    while _sweep(kernel.body, uses):
        changed = True
    return changed


def _drop_zero_trip_loops(kernel: Kernel) -> bool:
    loops = [op for op in kernel.walk() if op.name == "scf.for" and _runs_zero_times(op)]
    for loop in loops:
        replace_op(kernel, loop, loop.operands[3:])
    return bool(loops)


def _runs_zero_times(loop: Operation) -> bool:
    lower, upper, step = (constant_value(v) for v in loop.operands[:3])
    return None not in (lower, upper, step) and step > 0 and lower >= upper


def _sweep(block: Block, uses: dict) -> bool:
    changed = False
    erased = set()  # out of the block at once: one by one, each would search the list
    for op in reversed(block.ops):
        if not any(map(uses.get, op.results)) and _removable(op):  # None or 0: unused
            for inner in op.walk():
                for value in inner.operands:
                    uses[value] -= 1
            op.parent = None
            erased.add(op)
            continue
        if op.name == "scf.for":
            changed |= _drop_dead_carried(op, uses)
        for region in op.regions:
            changed |= _sweep(region.block, uses)
    if erased:
        block.ops[:] = [op for op in block.ops if op not in erased]
    return bool(erased) or changed


def _removable(op: Operation) -> bool:
    if op.name == "scf.yield":
        return False
    if op.name in ("scf.for", "scf.if"):
        return all(
            inner.name == "scf.yield" or _removable(inner)
            for region in op.regions
            for inner in region.block.ops
        )
    return lookup(op.name).effect in ("pure", "read", "alloc") and not op.regions


def _drop_dead_carried(loop: Operation, uses: dict) -> bool:
    body = loop.regions[0].block
    terminator = body.ops[-1]
    dead = [
        i
        for i, result in enumerate(loop.results)
        if not uses.get(result, 0)
        and uses.get(body.args[i + 1], 0) == int(terminator.operands[i] is body.args[i + 1])
    ]
    for i in reversed(dead):
        uses[loop.operands[3 + i]] -= 1
        uses[terminator.operands[i]] -= 1
        del loop.operands[3 + i], loop.results[i], body.args[i + 1], terminator.operands[i]
    return bool(dead)
