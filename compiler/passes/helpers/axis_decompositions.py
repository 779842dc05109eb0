"""Sorting, gathering and scanning along an axis, from pairwise comparisons, for targets without
`tile.sort`, `tile.gather` or `scan.sum`.

Each works on a pairwise view of the axis: the tile is expanded to `[..., n, n, ...]` (element i
against element j), a mask picks the pairs that count, and a `reduce.sum` collapses one side.
That is O(n^2) work per row, which tiles afford; on a target without tile values the pair tile
is never stored, only recomputed inside the reduction's loop.
"""

from __future__ import annotations

from compiler.ir import Builder, Operation, Value
from compiler.ir.types import is_float


def _along(b: Builder, size: int, axis: int, shape: tuple) -> Value:
    """0 .. size-1 along `axis` as i32, broadcast to `shape`."""
    index = b.value("arith.cast", b.value("tile.arange", size=size), dtype="i32")
    for _ in range(axis):
        index = b.value("tile.expand_dims", index, axis=0)
    while len(index.type.shape) < len(shape):
        index = b.value("tile.expand_dims", index, axis=len(index.type.shape))
    return b.broadcast_to(index, shape)


def _spread(b: Builder, x: Value, axis: int, shape: tuple) -> Value:
    """`x` with a new axis inserted at `axis`, broadcast to the pair shape."""
    return b.broadcast_to(b.value("tile.expand_dims", x, axis=axis), shape)


def _pair_shape(shape: tuple, axis: int, size: int) -> tuple:
    return (*shape[: axis + 1], size, *shape[axis + 1 :])


def _sum_where(b: Builder, mask: Value, values: Value, axis: int) -> Value:
    """The sum of `values` where `mask` holds, along `axis`: where one pair holds, that value.
    The pairs left out count as -0.0 for floats, which added to any value gives it unchanged
    (-0.0 included, where +0.0 would make it +0.0)."""
    dtype = values.type.dtype
    if dtype == "i1":  # bools are summed as integers
        values = b.value("arith.cast", values, dtype="i32")
    zero = b.constant(-0.0 if is_float(dtype) else 0, values.type.dtype, values.type.shape)
    total = b.value("reduce.sum", b.value("select.where", mask, values, zero), axis=axis)
    return b.value("arith.cast", total, dtype=dtype) if dtype == "i1" else total


def sort(b: Builder, op: Operation) -> Value:
    """Rank of element i = #(j before i) + #(j equal to i and j < i); result[r] = x[j] of rank r."""
    (x,) = op.operands
    axis, shape = op.attrs["axis"], x.type.shape
    pairs = _pair_shape(shape, axis, shape[axis])
    x_i, x_j = _spread(b, x, axis + 1, pairs), _spread(b, x, axis, pairs)
    i, j = _along(b, shape[axis], axis, pairs), _along(b, shape[axis], axis + 1, pairs)
    before = b.value("arith.cmp", x_j, x_i, pred="gt" if op.attrs["descending"] else "lt")
    j_first = b.value("arith.cmp", j, i, pred="lt")
    tie = b.value("arith.and", b.value("arith.cmp", x_j, x_i, pred="eq"), j_first)
    earlier = b.value("arith.or", before, tie)
    rank = b.value("reduce.sum", b.value("arith.cast", earlier, dtype="i32"), axis=axis + 1)
    at_rank = b.value("arith.cmp", _spread(b, rank, axis, pairs), i, pred="eq")
    return _sum_where(b, at_rank, x_j, axis + 1)


def gather(b: Builder, op: Operation) -> Value:
    source, index = op.operands
    axis = op.attrs["axis"]
    pairs = _pair_shape(index.type.shape, axis, source.type.shape[axis])
    wanted = _spread(b, b.value("arith.cast", index, dtype="i32"), axis + 1, pairs)
    picked = b.value(
        "arith.cmp", wanted, _along(b, source.type.shape[axis], axis + 1, pairs), pred="eq"
    )
    return _sum_where(b, picked, _spread(b, source, axis, pairs), axis + 1)


def running_sum(b: Builder, op: Operation) -> Value:
    """result[i] = the sum of x[j] for j <= i (j >= i from the end)."""
    (x,) = op.operands
    axis, shape = op.attrs["axis"], x.type.shape
    pairs = _pair_shape(shape, axis, shape[axis])
    i, j = _along(b, shape[axis], axis, pairs), _along(b, shape[axis], axis + 1, pairs)
    counted = b.value("arith.cmp", j, i, pred="ge" if op.attrs["reverse"] else "le")
    return _sum_where(b, counted, _spread(b, x, axis, pairs), axis + 1)


_PAIRWISE = ("arith.cast", "tile.arange", "tile.expand_dims", "tile.broadcast", "arith.cmp")
_PAIRWISE += ("select.where", "arith.constant", "reduce.sum")
# op -> (its expansion, the ops that produces)
EXPANSIONS = {
    "tile.sort": (sort, (*_PAIRWISE, "arith.and", "arith.or")),
    "tile.gather": (gather, _PAIRWISE),
    "scan.sum": (running_sum, _PAIRWISE),
}
