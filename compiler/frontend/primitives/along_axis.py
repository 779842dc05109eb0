"""Primitives along one axis of a tile: reductions, arg-reductions, scans, sorting, gathering.

The last four are compositions over a pairwise view of the axis: the tile is expanded to
`[..., n, n, ...]` (element i against element j), a mask picks the pairs that count, and a
`reduce.sum` or `reduce.min` collapses one side. That is O(n^2) work per row, which tiles afford,
and it needs no op beyond the generic ones, so every target has them.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.frontend.arith import Arith
from compiler.ir.core import Value
from compiler.ir.types import is_float


def _axis(x: Value, axis: int | None) -> int:
    return (len(x.type.shape) - 1 if axis is None else axis) % len(x.type.shape)


def _sum_dtype(dtype: str) -> str:
    """Triton's `sum` widens integers narrower than 32 bits (bool too) to 32 bits."""
    if dtype in ("i1", "i8", "i16"):
        return "i32"
    return "u32" if dtype in ("u8", "u16") else dtype


def _reduce(arith: Arith, op_name: str, x: object, axis, keep_dims: bool) -> Value:
    x = arith.as_value(x)
    axes = range(len(x.type.shape)) if axis is None else [axis % len(x.type.shape)]
    for done, ax in enumerate(sorted(axes)):
        x = arith.b.value(op_name, x, axis=ax - (done if axis is None else 0))
    if keep_dims:
        for ax in sorted(axes):
            x = arith.b.value("tile.expand_dims", x, axis=ax)
    return x


def sum(arith: Arith, input: object, axis=None, keep_dims=False, dtype=None) -> Value:  # noqa: A001
    x = arith.as_value(input)
    x = arith.cast(x, dtype or _sum_dtype(x.type.dtype))
    return _reduce(arith, "reduce.sum", x, axis, keep_dims)


def _extreme(op_name: str, pick: str) -> Callable:
    def lower(
        arith: Arith,
        input: object,
        axis=None,
        return_indices=False,
        return_indices_tie_break_left=True,
        keep_dims=False,
    ) -> object:
        result = _reduce(arith, op_name, input, axis, keep_dims)
        if not return_indices:
            return result
        return result, _arg_extreme(arith, op_name, input, axis, keep_dims)

    lower.__name__ = pick
    return lower


def _arg_extreme(arith: Arith, op_name: str, input: object, axis, keep_dims: bool) -> Value:
    """The first index along `axis` holding the extreme (NaN counts as extreme, as in torch)."""
    x = arith.as_value(input)
    if axis is None:
        x = arith.b.value("tile.reshape", x, shape=[_count(x)])
        axis = 0
    axis = _axis(x, axis)
    extreme = arith.b.value(
        "tile.broadcast", _reduce(arith, op_name, x, axis, True), shape=list(x.type.shape)
    )
    hit = arith.compare("eq", x, extreme)
    if is_float(x.type.dtype):
        hit = arith.binary("arith.or", hit, arith.b.value("math.isnan", x))
    size = x.type.shape[axis]
    index = _along(arith, size, axis, x.type.shape)
    candidates = arith.where(
        hit, index, arith.b.broadcast_to(arith.constant(_big(size), "i32"), x.type.shape)
    )
    return _reduce(arith, "reduce.min", candidates, axis, keep_dims)


def _count(x: Value) -> int:
    count = 1
    for d in x.type.shape:
        count *= d
    return count


def _big(size: object) -> int:
    return size if isinstance(size, int) else 2**31 - 1


def _along(arith: Arith, size: object, axis: int, shape: tuple) -> Value:
    """0 .. size-1 along `axis`, as i32, broadcast to `shape`."""
    index = arith.cast(arith.b.value("tile.arange", size=size), "i32")
    for _ in range(axis):
        index = arith.b.value("tile.expand_dims", index, axis=0)
    while len(index.type.shape) < len(shape):
        index = arith.b.value("tile.expand_dims", index, axis=len(index.type.shape))
    return arith.b.broadcast_to(index, tuple(shape))


def argmax(arith: Arith, input: object, axis, tie_break_left=True, keep_dims=False) -> Value:
    return _arg_extreme(arith, "reduce.max", input, axis, keep_dims)


def argmin(arith: Arith, input: object, axis, tie_break_left=True, keep_dims=False) -> Value:
    return _arg_extreme(arith, "reduce.min", input, axis, keep_dims)


def _pairs(arith: Arith, x: Value, axis: int) -> tuple[Value, Value, Value, Value]:
    """x[i] and x[j] over `[..., n(i), n(j), ...]`, with the indices i and j."""
    shape = list(x.type.shape)
    pair_shape = tuple(shape[: axis + 1] + [shape[axis]] + shape[axis + 1 :])
    x_i = arith.b.broadcast_to(arith.b.value("tile.expand_dims", x, axis=axis + 1), pair_shape)
    x_j = arith.b.broadcast_to(arith.b.value("tile.expand_dims", x, axis=axis), pair_shape)
    i = _along(arith, shape[axis], axis, pair_shape)
    j = _along(arith, shape[axis], axis + 1, pair_shape)
    return x_i, x_j, i, j


def _sum_picked(arith: Arith, mask: Value, values: Value, axis: int) -> Value:
    """Sum of `values` where `mask` holds, along `axis`: the one picked value, exactly."""
    dtype = values.type.dtype
    wide = arith.cast(values, "i32") if dtype == "i1" else values
    zero = arith.b.broadcast_to(arith.constant(0, wide.type.dtype), wide.type.shape)
    picked = arith.b.value("reduce.sum", arith.where(mask, wide, zero), axis=axis)
    return arith.cast(picked, dtype)


def cumsum(arith: Arith, input: object, axis=0, reverse=False) -> Value:
    x = arith.as_value(input)
    x = arith.cast(x, _sum_dtype(x.type.dtype))
    axis = _axis(x, axis)
    _, x_j, i, j = _pairs(arith, x, axis)
    mask = arith.compare("ge" if reverse else "le", j, i)
    zero = arith.b.broadcast_to(arith.constant(0, x.type.dtype), x_j.type.shape)
    return arith.b.value("reduce.sum", arith.where(mask, x_j, zero), axis=axis + 1)


def gather(arith: Arith, src: object, index: object, axis) -> Value:
    """result[.., i, ..] = src[.., index[.., i, ..], ..] along `axis`."""
    src, index = arith.as_value(src), arith.as_value(index)
    axis = _axis(src, axis)
    shape = list(index.type.shape)
    pair_shape = tuple(shape[: axis + 1] + [src.type.shape[axis]] + shape[axis + 1 :])
    wanted = arith.b.broadcast_to(
        arith.b.value("tile.expand_dims", arith.cast(index, "i32"), axis=axis + 1), pair_shape
    )
    source = arith.b.broadcast_to(arith.b.value("tile.expand_dims", src, axis=axis), pair_shape)
    j = _along(arith, src.type.shape[axis], axis + 1, pair_shape)
    return _sum_picked(arith, arith.compare("eq", wanted, j), source, axis + 1)


def flip(arith: Arith, x: object, dim=None) -> Value:
    x = arith.as_value(x)
    axis = _axis(x, dim)
    size = x.type.shape[axis]
    reverse = arith.binary("arith.sub", size - 1, _along(arith, size, axis, x.type.shape))
    return gather(arith, x, reverse, axis)


def _before(arith: Arith, a: Value, b: Value, descending: bool) -> tuple[Value, Value]:
    """(a sorts strictly before b, a ties with b); NaN sorts last, as in torch."""
    less = arith.compare("gt" if descending else "lt", a, b)
    same = arith.compare("eq", a, b)
    if is_float(a.type.dtype):
        a_nan, b_nan = arith.b.value("math.isnan", a), arith.b.value("math.isnan", b)
        not_a_nan = arith.b.value("arith.not", a_nan)
        less = arith.binary("arith.or", less, arith.binary("arith.and", not_a_nan, b_nan))
        same = arith.binary("arith.or", same, arith.binary("arith.and", a_nan, b_nan))
    return less, same


def sort(arith: Arith, x: object, dim=None, descending=False) -> Value:
    """Stable: element i goes to rank #(j before i) + #(j ties i, j < i)."""
    x = arith.as_value(x)
    axis = _axis(x, dim)
    x_i, x_j, i, j = _pairs(arith, x, axis)
    less, same = _before(arith, x_j, x_i, bool(descending))
    earlier = arith.binary(
        "arith.or", less, arith.binary("arith.and", same, arith.compare("lt", j, i))
    )
    rank = arith.b.value("reduce.sum", arith.cast(earlier, "i32"), axis=axis + 1)
    # result[r] = the x[j] whose rank is r; r runs along `axis` as i does
    rank_j = arith.b.broadcast_to(arith.b.value("tile.expand_dims", rank, axis=axis), i.type.shape)
    return _sum_picked(arith, arith.compare("eq", rank_j, i), x_j, axis + 1)


PRIMITIVES: dict[str, Callable] = {
    "sum": sum,
    "max": _extreme("reduce.max", "max"),
    "min": _extreme("reduce.min", "min"),
    **{f.__name__: f for f in (argmax, argmin, cumsum, gather, flip, sort)},
}
