"""Primitives along one axis of a tile: reductions, arg-reductions, scans, sorting, gathering,
histograms.

Arg-reductions compose a reduction with a comparison and an index reduction; a scan, a sort and a
gather are ops of their own (`scan.sum`, `tile.sort`, `tile.gather`), which a target without them
gets decomposed (compiler/passes/helpers/axis_decompositions.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.dtypes import ir_dtype
from compiler.ir.core import Value
from compiler.ir.types import BIT_WIDTHS, is_float


def _axis(x: Value, axis: int | None) -> int:
    return (len(x.type.shape) - 1 if axis is None else axis) % len(x.type.shape)


def _sum_dtype(dtype: str, wanted: object) -> str:
    """Triton's `sum` and `cumsum` compute in `dtype` where one is given; else integers narrower
    than 32 bits widen to 32, keeping their signedness (a bool counts as unsigned: u32)."""
    if wanted is not None:
        return ir_dtype(wanted)
    if dtype in ("i8", "i16"):
        return "i32"
    return "u32" if dtype in ("i1", "u8", "u16") else dtype


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
    x = arith.cast(x, _sum_dtype(x.type.dtype, dtype))
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
        if return_indices:
            value = _reduce(arith, op_name, input, axis, keep_dims)
            return value, _arg_extreme(arith, op_name, input, axis, keep_dims)
        return _reduce(arith, op_name, _widened(arith, arith.as_value(input)), axis, keep_dims)

    lower.__name__ = pick
    return lower


def _widened(arith: Arith, x: Value) -> Value:
    """Triton's `max` and `min` (without indices) compute a dtype narrower than 32 bits in f32
    (floats) or i32 (integers, unsigned and bools included): `max(u8) + 1` is 256 at 255."""
    if BIT_WIDTHS.get(x.type.dtype, 64) >= 32:
        return x
    return arith.cast(x, "f32" if is_float(x.type.dtype) else "i32")


def _arg_extreme(arith: Arith, op_name: str, input: object, axis, keep_dims: bool) -> Value:
    """The first index along `axis` holding the extreme the reduction gives, which passes NaN
    over (IEEE maxNum, as Triton's): NineToothed's answer (Triton's interpreter takes numpy's
    nanargmax), and the index of `max(..., return_indices=True)`'s own value. Only where every
    element is NaN is the extreme NaN, and the first index its."""
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
        hit = arith.binary("arith.or", hit, arith.b.value("math.isnan", extreme))
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


def cumsum(arith: Arith, input: object, axis=0, reverse=False, dtype=None) -> Value:
    x = arith.as_value(input)
    x = arith.cast(x, _sum_dtype(x.type.dtype, dtype))
    return arith.b.value("scan.sum", x, axis=_axis(x, axis), reverse=bool(reverse))


def gather(arith: Arith, src: object, index: object, axis) -> Value:
    """result[.., i, ..] = src[.., index[.., i, ..], ..] along `axis`."""
    src, index = arith.as_value(src), arith.as_value(index)
    return arith.b.value("tile.gather", src, index, axis=_axis(src, axis))


def flip(arith: Arith, x: object, dim=None) -> Value:
    x = arith.as_value(x)
    axis = _axis(x, dim)
    size = x.type.shape[axis]
    reverse = arith.binary("arith.sub", size - 1, _along(arith, size, axis, x.type.shape))
    return gather(arith, x, reverse, axis)


def sort(arith: Arith, x: object, dim=None, descending=False) -> Value:
    """Integers sort as they are; a float sorts as the integer with its ordered bits (the sign
    bit flips the rest for negatives), so NaN (made positive) sorts last, as in torch."""
    x = arith.as_value(x)
    axis, dtype = _axis(x, dim), x.type.dtype
    if dtype == "i1":  # bools sort as bytes
        return arith.cast(sort(arith, arith.cast(x, "i8"), axis, descending), "i1")
    if not is_float(dtype):
        return arith.b.value("tile.sort", x, axis=axis, descending=bool(descending))
    key_dtype = f"i{BIT_WIDTHS[dtype]}"
    quiet = arith.where(arith.b.value("math.isnan", x), math.nan, x)
    key = _ordered_bits(arith, arith.b.value("arith.bitcast", quiet, dtype=key_dtype))
    ordered = arith.b.value("tile.sort", key, axis=axis, descending=bool(descending))
    return arith.b.value("arith.bitcast", _ordered_bits(arith, ordered), dtype=dtype)


def sort_impl(arith: Arith, x: object, k=None, dim=None, descending=False) -> Value:
    """The first `k` elements of the sorted last axis (all of it without `k`): Triton's `sort`
    and `topk` are written on it."""
    ordered = sort(arith, x, dim, descending)
    axis = _axis(ordered, dim)
    size = ordered.type.shape[axis]
    if k is None or k == size:
        return ordered
    if axis != len(ordered.type.shape) - 1 or not isinstance(size, int) or not 0 < k <= size:
        raise CompileError(
            f"the first {k} of a sorted tile of shape {list(ordered.type.shape)} along dim "
            f"{dim}: take them along the last dim, of a size known when the program compiles "
            "and at least k"
        )
    shape = (*ordered.type.shape[:axis], k)
    return gather(arith, ordered, _along(arith, k, axis, shape), axis)


def histogram(arith: Arith, input: object, num_bins: int, mask: object = None) -> Value:
    """i32 counts of the values 0 .. num_bins-1 in a 1-D tile (where `mask` holds); other values
    are not counted."""
    x = arith.as_value(input)
    if len(x.type.shape) != 1 or is_float(x.type.dtype):
        raise CompileError(f"ntl.histogram takes a 1-D tile of integers, got {x.type}")
    shape = (x.type.shape[0], num_bins)
    values = arith.b.broadcast_to(arith.b.value("tile.expand_dims", x, axis=1), shape)
    hits = arith.compare("eq", values, _along(arith, num_bins, 1, shape))
    if mask is not None:
        kept = arith.b.value("tile.expand_dims", arith.cast(arith.as_value(mask), "i1"), axis=1)
        hits = arith.binary("arith.and", hits, arith.b.broadcast_to(kept, shape))
    return arith.b.value("reduce.sum", arith.cast(hits, "i32"), axis=0)


def _ordered_bits(arith: Arith, bits: Value) -> Value:
    """Flips every bit but the sign of a negative float's bits: integer order is then float order.
    The flip is its own inverse."""
    width = BIT_WIDTHS[bits.type.dtype]
    sign = arith.binary("arith.shr", bits, width - 1)  # all ones for negatives, else 0
    return arith.binary("arith.xor", bits, arith.binary("arith.and", sign, 2 ** (width - 1) - 1))


PRIMITIVES: dict[str, Callable] = {
    "sum": sum,
    "max": _extreme("reduce.max", "max"),
    "min": _extreme("reduce.min", "min"),
    **{f.__name__: f for f in (argmax, argmin, cumsum, gather, flip, sort, sort_impl)},
    "histogram": histogram,
}
