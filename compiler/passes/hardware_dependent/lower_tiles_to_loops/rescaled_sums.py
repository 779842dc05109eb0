"""Which loop-carried sums a dot may add to in place after rescaling them element by element.

A loop that keeps a running maximum may carry `acc` and update it as
`acc = acc * alpha[:, None] + dot(p, v)`: the old sum is rescaled, then the new product added.
Where the rescale reads `acc` only element for element (elementwise ops of its shape, no
broadcast, transpose or reduction of it), each element of the carried array can be overwritten by
its rescaled value, and the dot then adds to that array in place, as for `acc += dot(a, b)`.
`ssa.lower_tiles_to_loops` fills the rescale just before the dot, so every other value the
rescale reads must be ready there: held in an array (a load, reduction, dot, loop or branch
result) or a scalar the loop body defines before the dot, or computed per element from such
values.
"""

from __future__ import annotations

from collections.abc import Mapping

from compiler.ir import Block, Operation, TileType, Value, lookup
from compiler.passes.hardware_dependent.lower_tiles_to_loops.tile_elements import (
    ELEMENTWISE_DIALECTS,
)

# Ops whose tile results the tile lowering holds in arrays, computed where they stand (with every
# op of the reduce dialect).
HELD = frozenset({"scf.for", "scf.while", "scf.if", "linalg.dot", "mem.load", "mem.atomic"})


def rescales(
    rescale: Value,
    carried: Value,
    dot: Operation,
    body: Block,
    readers: Mapping[Value, list[Operation]],
) -> bool:
    """Whether `rescale` (the other addend of the dot in the loop's update of `carried`) reads
    `carried` element for element, is read by that addition alone, and needs nothing the body
    computes after `dot`."""
    if rescale.type != carried.type or len(readers.get(rescale, ())) != 1:
        return False
    before = set(body.ops[: body.ops.index(dot)])
    depending = _depending(carried, body)
    shape = carried.type.shape
    reads_carried = False
    pending, seen = [rescale], set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        if value is carried:
            reads_carried = True
            continue
        owner = value.owner
        if not isinstance(owner, Operation) or owner.parent is not body:
            continue  # defined before the loop (or an argument)
        elementwise = lookup(owner.name).dialect in ELEMENTWISE_DIALECTS
        if value in depending and not (elementwise and value.type.shape == shape):
            return False
        held = owner.name in HELD or lookup(owner.name).dialect == "reduce"
        if not isinstance(value.type, TileType) or held:
            if owner not in before:
                return False
            continue
        pending.extend(owner.operands)
    return reads_carried


def _depending(carried: Value, body: Block) -> set[Value]:
    """The values of `body` computed from `carried` (in one pass, in program order)."""
    depending = {carried}
    for op in body.ops:
        if any(v in depending for nested in op.walk() for v in nested.operands):
            depending.update(op.results)
    return depending
