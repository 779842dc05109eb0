"""Loop-invariant code motion: pure ops of an `scf.for` body whose operands are all defined outside
the loop move just before it, inner loops first, so address math and masks that do not depend on
the induction variable are computed once.
"""

from __future__ import annotations

from compiler.ir import Block, Kernel, Operation, lookup


def licm(kernel: Kernel) -> bool:
    return _hoist_in(kernel.body)


def _hoist_in(block: Block) -> bool:
    changed = False
    for op in list(block.ops):
        for region in op.regions:
            changed |= _hoist_in(region.block)
        if op.name == "scf.for":
            changed |= _hoist_from(op)
    return changed


def _hoist_from(loop: Operation) -> bool:
    body = loop.regions[0].block
    inside = set(body.args)
    for op in body.ops:
        inside.update(op.results)
    outer = loop.parent
    position = outer.ops.index(loop)
    hoisted = False
    for op in list(body.ops):
        if op.regions or lookup(op.name).effect != "pure" or inside.intersection(op.operands):
            continue
        body.ops.remove(op)
        outer.insert(position, op)
        position += 1
        inside.difference_update(op.results)
        hoisted = True
    return hoisted
