"""Creates ops at an insertion point, inferring result types from the registry.

A numbered builder (`Builder(block, numbered=True)`, the front end's) gives back the op that a
pure op appended to a block repeats, one made earlier in that same block, instead of a copy:
value numbering as the IR is built, so every later walk (printing, verifying, the first
`ssa.canonicalize`) meets each index expression once. Earlier ops of the block dominate the ops
appended after them, so the reuse needs no dominance analysis.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from compiler.ir.core import Block, Operation, Region, Value
from compiler.ir.numbering import value_key
from compiler.ir.registry import OPS, lookup
from compiler.ir.types import Dim, ScalarType, TileType, Type, value_type


class Builder:
    def __init__(self, block: Block, *, numbered: bool = False):
        self.block = block
        self.index: int | None = None  # None: append at the end of the block
        # block -> the pure ops appended to it, by `value_key`; None: not numbered
        self.numbers: dict[Block, dict[tuple, Operation]] | None = {} if numbered else None

    @contextmanager
    def at_end_of(self, block: Block) -> Iterator[Builder]:
        saved = self.block, self.index
        self.block, self.index = block, None
        try:
            yield self
        finally:
            self.block, self.index = saved

    def insert(self, op: Operation) -> Operation:
        if self.index is None:
            self.block.append(op)
        else:
            self.block.insert(self.index, op)
            self.index += 1
        return op

    def create(
        self,
        name: str,
        operands: list[Value] = (),
        attrs: dict | None = None,
        result_types: list[Type] | None = None,
        regions: list[Region] | None = None,
    ) -> Operation:
        definition = OPS.get(name) or lookup(name)  # lookup: the error for an unknown op
        if result_types is None:
            result_types = definition.infer([v.type for v in operands], attrs or {})
        if self.numbers is None or self.index is not None or regions or definition.effect != "pure":
            # Operation keeps its own copies of the operand list and the attribute dict
            return self.insert(Operation(name, operands, result_types, attrs, regions))
        numbers = self.numbers.setdefault(self.block, {})
        key = value_key(name, operands, attrs, result_types)
        earlier = numbers.get(key)
        if earlier is not None and earlier.parent is self.block:
            return earlier
        numbers[key] = op = self.insert(Operation(name, operands, result_types, attrs))
        return op

    def value(self, op_name: str, *operands: Value, **attrs: object) -> Value:
        """Create a single-result op and return its result."""
        return self.create(op_name, list(operands), attrs).result

    def constant(self, value: object, dtype: str, shape: tuple[Dim, ...] = ()) -> Value:
        type_ = value_type(dtype, shape)
        return self.create("arith.constant", [], {"value": value}, [type_]).result

    def broadcast_to(self, value: Value, shape: tuple[Dim, ...]) -> Value:
        """Stretch a scalar or a lower-rank tile to `shape`, NumPy-style (leading dims added)."""
        shape = tuple(shape)
        if value.type.shape == shape:
            return value
        while len(value.type.shape) < len(shape) and value.type.shape:
            value = self.value("tile.expand_dims", value, axis=0)
        if value.type.shape == shape:
            return value
        return self.value("tile.broadcast", value, shape=list(shape))


def broadcast_shape(*types: ScalarType | TileType) -> tuple[Dim, ...]:
    """NumPy broadcasting of tile shapes; raises ValueError naming both shapes when they clash."""
    rank = max(len(t.shape) for t in types)
    result: list[Dim] = [1] * rank
    for t in types:
        padded = (1,) * (rank - len(t.shape)) + tuple(t.shape)
        for i, dim in enumerate(padded):
            if dim == 1 or dim == result[i]:
                continue
            if result[i] != 1:
                shapes = " and ".join(str(list(t.shape)) for t in types)
                raise ValueError(f"shapes {shapes} cannot be broadcast together")
            result[i] = dim
    return tuple(result)
