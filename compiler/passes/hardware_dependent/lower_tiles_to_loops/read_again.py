"""Which computed tiles `ssa.lower_tiles_to_loops` holds in an array, although it could compute
them per element where they are used: those whose element costs a math function and is read more
than once. Held, each element is computed once; computed where used, once per read.

An element is read more than once where what reads the tile (through ops that move elements or
compute per element) is larger than it, as a row's scale spread across its row; where more than
one op with a loop of its own reads it, as a numerator both summed and divided by its sum; or
where a loop below its definition reads it, once per iteration.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Set

from compiler.ir import Block, Operation, TileType, Value, lookup
from compiler.passes.hardware_dependent.lower_tiles_to_loops.tile_elements import (
    ELEMENTWISE_DIALECTS,
    is_elementwise,
)
from compiler.passes.helpers.rewrite import defining_op

# Ops that only move a tile's elements: what reads their result reads the tile itself.
MOVES = frozenset({"tile.expand_dims", "tile.reshape", "tile.trans", "tile.broadcast"})


def holds_read_again(
    op: Operation, readers: Mapping[Value, list[Operation]], held: Set[Value]
) -> bool:
    """Whether `op`'s tile is an elementwise result whose element runs a math function and is
    read more than once (`held`: the tiles in arrays already, which computing an element reads)."""
    return is_elementwise(op) and _runs_math(op.result, held) and _read_again(op, readers)


def _read_again(op: Operation, readers: Mapping[Value, list[Operation]]) -> bool:
    size, stack = math.prod(op.result.type.shape), [op.result]
    seen, sinks = set(), set()
    while stack:
        for reader in readers.get(stack.pop(), ()):
            if reader in seen:
                continue
            seen.add(reader)
            if not (reader.name in MOVES or is_elementwise(reader)):
                sinks.add(reader)
            elif math.prod(reader.result.type.shape) > size:
                return True
            else:
                stack.append(reader.result)
    return len(sinks) > 1 or any(_in_loop_below(sink, op.parent) for sink in sinks)


def _in_loop_below(op: Operation, block: Block) -> bool:
    """Whether a loop encloses `op` inside `block` (which holds `op`, at some depth)."""
    while op.parent is not block:
        op = op.parent.parent.parent  # block -> region -> the op owning it
        if op.name in ("scf.for", "scf.while"):
            return True
    return False


def _runs_math(value: Value, held: Set[Value]) -> bool:
    stack, seen = [value], set()
    while stack:
        value = stack.pop()
        op = defining_op(value)
        if op is None or value in held or value in seen or not isinstance(value.type, TileType):
            continue
        seen.add(value)
        dialect = lookup(op.name).dialect
        if dialect == "math":
            return True
        if dialect in ELEMENTWISE_DIALECTS or op.name in MOVES:
            stack.extend(op.operands)
    return False
