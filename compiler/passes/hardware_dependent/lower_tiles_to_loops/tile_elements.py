"""One element of a tile as scalar ops: the building block of `ssa.lower_tiles_to_loops`.

`Elements.at(value, index)` emits, at the builder's insertion point, the scalar ops that compute
`value[index]` (`index`: one index scalar per tile dim). A tile held in an array is read from it;
any other tile is computed from its defining op, recursively: elementwise ops apply to their
operands' elements, shape ops (broadcast, expand_dims, reshape, trans, arange) only move the index,
a load loads one element. Results are memoised per (value, index) for the loop body being built.
"""

from __future__ import annotations

import math
from collections import ChainMap

from compiler.ir import Builder, Operation, TileType, Value, lookup, value_type
from compiler.passes.base import PassError
from compiler.passes.helpers.rewrite import defining_op

ELEMENTWISE_DIALECTS = ("arith", "math", "select")


def is_elementwise(op: Operation) -> bool:
    """A pure op of an elementwise dialect: each result element from the operands' elements."""
    definition = lookup(op.name)
    return definition.dialect in ELEMENTWISE_DIALECTS and definition.effect == "pure"


def strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides of `shape` (element (i, j) of [M, N] is at i*N + j)."""
    return tuple(math.prod(shape[d + 1 :]) for d in range(len(shape)))


class Elements:
    def __init__(self, pass_name: str, scalars: dict[Value, Value], arrays: dict[Value, Value]):
        self.pass_name = pass_name
        self.scalars = scalars  # a scalar of the input IR -> its value in the output
        self.arrays = arrays  # a tile of the input IR -> the array holding it in the output
        self.memo: ChainMap = ChainMap()

    # -- index arithmetic --------------------------------------------------------------------------

    def constant(self, b: Builder, value: int) -> Value:
        key = ("constant", value)
        if key not in self.memo:
            self.memo[key] = b.constant(value, "index")
        return self.memo[key]

    def binary(self, b: Builder, name: str, left: Value, right: int) -> Value:
        key = (name, left, right)
        if key not in self.memo:
            self.memo[key] = b.value(name, left, self.constant(b, right))
        return self.memo[key]

    def linear(self, b: Builder, index: tuple[Value, ...], shape: tuple[int, ...]) -> Value:
        """The row-major position of `index` in `shape` (dims of size 1 contribute nothing)."""
        known = self.memo.get(("linear", tuple(index), tuple(shape)))
        if known is not None:
            return known
        terms = [
            i if stride == 1 else self.binary(b, "arith.mul", i, stride)
            for i, size, stride in zip(index, shape, strides(shape), strict=True)
            if size != 1
        ]
        if not terms:
            return self.constant(b, 0)
        total = terms[0]
        for term in terms[1:]:
            total = b.value("arith.add", total, term)
        return total

    def delinearize(self, b: Builder, position: Value, shape: tuple[int, ...]) -> tuple[Value, ...]:
        """The index of row-major `position` in `shape`."""
        index = []
        for d, (size, stride) in enumerate(zip(shape, strides(shape), strict=True)):
            if size == 1:
                index.append(self.constant(b, 0))
                continue
            value = position if stride == 1 else self.binary(b, "arith.idiv", position, stride)
            if d > 0:  # the leading dim needs no wrap: position < prod(shape)
                value = self.binary(b, "arith.irem", value, size)
            index.append(value)
        # An array of this shape read at this index is read at `position` itself: the very
        # expression a write there uses (TileLang matches a fragment's accesses structurally).
        self.memo[("linear", tuple(index), tuple(shape))] = position
        return tuple(index)

    # -- elements ----------------------------------------------------------------------------------

    def at(self, b: Builder, value: Value, index: tuple[Value, ...]) -> Value:
        if not isinstance(value.type, TileType):
            return self.scalars[value]
        key = (value, index)
        if key not in self.memo:
            if value in self.arrays:
                position = self.linear(b, index, value.type.shape)
                self.memo[key] = b.value("mem.read", self.arrays[value], position)
            else:
                self.memo[key] = self.compute(b, defining_op(value), index)
        return self.memo[key]

    def compute(self, b: Builder, op: Operation | None, index: tuple[Value, ...]) -> Value:
        """The element at `index` of `op`'s tile result, from its definition."""
        if op is None:
            raise PassError(f"{self.pass_name}: a tile block argument was not given an array")
        shape = op.result.type.shape
        if op.name == "tile.arange":
            return index[0]
        if op.name == "tile.broadcast":
            source = _broadcast_source(op.operands[0], shape, index)
            zero = self.constant(b, 0)
            return self.at(b, op.operands[0], tuple(zero if i is None else i for i in source))
        if op.name == "tile.expand_dims":
            axis = op.attrs["axis"]
            return self.at(b, op.operands[0], index[:axis] + index[axis + 1 :])
        if op.name == "tile.trans":
            source = [None] * len(index)
            for d, p in enumerate(op.attrs["perm"]):
                source[p] = index[d]
            return self.at(b, op.operands[0], tuple(source))
        if op.name == "tile.reshape":
            source_shape = op.operands[0].type.shape
            position = self.linear(b, index, shape)
            return self.at(b, op.operands[0], self.delinearize(b, position, source_shape))
        if op.name == "arith.constant":
            return b.constant(op.attrs["value"], op.result.type.dtype)
        if op.name == "mem.load":
            buffer, offsets, *mask = op.operands
            operands = [self.scalars[buffer], *(self.at(b, v, index) for v in (offsets, *mask))]
            return b.create("mem.load", operands, dict(op.attrs)).result
        if is_elementwise(op):
            operands = [self.at(b, v, index) for v in op.operands]
            result = value_type(op.result.type.dtype, ())
            return b.create(op.name, operands, dict(op.attrs), [result]).result
        raise PassError(
            f"{self.pass_name}: {op.name} has no per-element form; it must be materialized "
            "(add it to the materialized ops of ssa.lower_tiles_to_loops)"
        )


def _broadcast_source(source: Value, shape: tuple, index: tuple[Value, ...]) -> tuple:
    """NumPy broadcasting backwards: trailing dims align; a stretched dim of 1 reads element 0
    (None here)."""
    if not isinstance(source.type, TileType):
        return ()
    source_shape = source.type.shape
    offset = len(shape) - len(source_shape)
    return tuple(
        index[offset + d] if size != 1 or shape[offset + d] == 1 else None
        for d, size in enumerate(source_shape)
    )
