"""Primitives that pair two tiles along a new last axis of size 2, or take such pairs apart:
`join`, `split`, `interleave`, `cat`.

A pair axis is made by selecting between the two tiles on an index along it, and taken apart by
summing the one element a mask keeps. The other lane is `-0.0` (or 0), which added to any value
gives it back unchanged (`-0.0` and NaN included), so taking apart is exact for every dtype.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.primitives.along_axis import _along
from compiler.ir.builder import broadcast_shape
from compiler.ir.core import Value
from compiler.ir.types import is_float


def join(arith: Arith, a: object, b: object) -> Value:
    """`a` and `b` (broadcast to one shape) side by side in a new last axis of size 2."""
    a, b = arith.unify(arith.as_value(a), arith.as_value(b))
    shape = (*a.type.shape, 2)
    first = arith.compare("eq", _along(arith, 2, len(shape) - 1, shape), 0)

    def lane(v: Value) -> Value:  # a scalar splats to both lanes' shape at once
        widened = arith.b.value("tile.expand_dims", v, axis=len(shape) - 1) if v.type.shape else v
        return arith.b.broadcast_to(widened, shape)

    return arith.b.value("select.where", first, lane(a), lane(b))


def pick(arith: Arith, pairs: Value, axis: int, lane: int) -> Value:
    """Element `lane` (0 or 1) of each pair along `axis` (of size 2), that axis removed."""
    dtype = pairs.type.dtype
    summed = arith.cast(pairs, "i8") if dtype == "i1" else pairs
    other = arith.b.broadcast_to(
        arith.constant(-0.0 if is_float(dtype) else 0, summed.type.dtype), summed.type.shape
    )
    at = arith.compare("eq", _along(arith, 2, axis, summed.type.shape), lane)
    kept = arith.b.value("select.where", at, summed, other)
    return arith.cast(arith.b.value("reduce.sum", kept, axis=axis), dtype)


def split(arith: Arith, a: object) -> tuple[Value, Value]:
    a = arith.as_value(a)
    if not a.type.shape or a.type.shape[-1] != 2:
        raise CompileError(
            f"ntl.split takes a tile whose last dim is 2, got {a.type}; join two tiles (or "
            "reshape to a last dim of 2) first"
        )
    axis = len(a.type.shape) - 1
    return pick(arith, a, axis, 0), pick(arith, a, axis, 1)


def interleave(arith: Arith, a: object, b: object) -> Value:
    """a[0], b[0], a[1], b[1], ... along the last axis."""
    joined = join(arith, a, b)
    shape = joined.type.shape
    if len(shape) == 1:
        return joined
    return _merged(arith, joined, len(shape) - 2, "ntl.interleave")


def cat(arith: Arith, input: object, other: object, can_reorder=False, dim=0) -> Value:
    """`input` then `other` along `dim` (Triton's order, which it keeps whether or not
    `can_reorder` allows another)."""
    x, y = arith.as_value(input), arith.as_value(other)
    if x.type.shape != y.type.shape:
        raise CompileError(
            f"ntl.cat takes two tiles of one shape, got {x.type} and {y.type}; broadcast or "
            "reshape them to one shape first"
        )
    rank = len(x.type.shape)
    dim = dim % rank
    joined = join(arith, x, y)  # [..., 2]: the pair axis goes just before `dim`, then merges
    order = [*range(dim), rank, *range(dim, rank)]
    return _merged(arith, arith.b.value("tile.trans", joined, perm=order), dim, "ntl.cat")


def _merged(arith: Arith, x: Value, axis: int, what: str) -> Value:
    """`x` with dims `axis` and `axis + 1` merged into one."""
    shape = list(x.type.shape)
    if not all(isinstance(d, int) for d in shape[axis : axis + 2]):
        raise CompileError(
            f"{what} on a tile of shape {list(shape)}: the merged size must be known when the "
            "program compiles; give the block size as an int"
        )
    shape[axis : axis + 2] = [shape[axis] * shape[axis + 1]]
    return arith.b.value("tile.reshape", x, shape=shape)


def broadcast(arith: Arith, input: object, other: object) -> tuple[Value, Value]:
    """Both tiles broadcast to their common shape, each keeping its dtype."""
    x, y = arith.as_value(input), arith.as_value(other)
    shape = broadcast_shape(x.type, y.type)
    return arith.b.broadcast_to(x, shape), arith.b.broadcast_to(y, shape)


PRIMITIVES: dict[str, Callable] = {f.__name__: f for f in (join, split, interleave, cat, broadcast)}
