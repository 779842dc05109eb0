"""Primitives that make tiles or rearrange their dims: `zeros`, `full`, `arange`, `trans`,
`permute`, `reshape`, `ravel`, `broadcast_to`, `expand_dims`."""

from __future__ import annotations

from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.dtypes import ir_dtype
from compiler.frontend.symbols import next_power_of_two
from compiler.ir.core import Value


def _tile_shape(shape: tuple, primitive: str) -> tuple:
    """A tile's shape as written: every int dim a power of two, as Triton requires (rounding one
    up would add elements the program never asked for: a sum would count them)."""
    for d in shape:
        if isinstance(d, int) and d != next_power_of_two(d):
            raise CompileError(
                f"ntl.{primitive} with shape {tuple(shape)}: {d} is not a power of two, and a "
                f"tile's dims must be; use {next_power_of_two(d)} and mask the extra elements "
                f"(ntl.where(ntl.arange(0, {next_power_of_two(d)}) < {d}, ...))"
            )
    return tuple(shape)


def _dims(dims: tuple) -> tuple:
    """Triton takes dims either as one sequence or spread out: `f(x, (1, 0))` or `f(x, 1, 0)`."""
    if len(dims) == 1 and isinstance(dims[0], tuple | list):
        return tuple(dims[0])
    return tuple(dims)


def full(arith: Arith, shape: tuple, value: object, dtype: str) -> Value:
    return arith.constant(value, ir_dtype(dtype), _tile_shape(tuple(shape), "full"))


def zeros(arith: Arith, shape: tuple, dtype: str) -> Value:
    return arith.constant(0, ir_dtype(dtype), _tile_shape(tuple(shape), "zeros"))


def arange(arith: Arith, start: int, end: int | str) -> Value:
    """`end` may be a block size (a meta symbol's name) when `start` is 0."""
    if isinstance(end, str) and start == 0:
        return arith.b.value("tile.arange", size=end)
    if not (isinstance(start, int) and isinstance(end, int)) or end <= start:
        raise CompileError(
            f"ntl.arange({start}, {end}) needs compile-time ints with start < end, or 0 and a "
            "block size"
        )
    _tile_shape((end - start,), f"arange({start}, {end})")
    index = arith.b.value("tile.arange", size=end - start)
    return arith.binary("arith.add", index, start) if start else index


def permute(arith: Arith, input: object, *dims: int) -> Value:
    x = arith.as_value(input)
    perm = [d % len(x.type.shape) for d in _dims(dims)]
    return arith.b.value("tile.trans", x, perm=perm)


def trans(arith: Arith, input: object, *dims: int) -> Value:
    x = arith.as_value(input)
    return permute(arith, x, *(_dims(dims) or range(len(x.type.shape))[::-1]))


def reshape(arith: Arith, input: object, *shape: int, can_reorder=False) -> Value:
    return arith.b.value(
        "tile.reshape", arith.as_value(input), shape=list(_tile_shape(_dims(shape), "reshape"))
    )


def ravel(arith: Arith, x: object, can_reorder=False) -> Value:
    x = arith.as_value(x)
    dims = x.type.shape
    if not all(isinstance(d, int) for d in dims):
        raise CompileError(
            f"ntl.ravel on a tile of shape {list(dims)}: its element count must be known when the "
            "program compiles; give the block sizes as ints"
        )
    count = 1
    for d in dims:
        count *= d
    return arith.b.value("tile.reshape", x, shape=[count])


def broadcast_to(arith: Arith, input: object, *shape: int) -> Value:
    return arith.b.broadcast_to(arith.as_value(input), _tile_shape(_dims(shape), "broadcast_to"))


def expand_dims(arith: Arith, input: object, axis) -> Value:
    x = arith.as_value(input)
    for ax in sorted(axis if isinstance(axis, tuple | list) else (axis,)):
        x = arith.b.value("tile.expand_dims", x, axis=ax % (len(x.type.shape) + 1))
    return x


PRIMITIVES: dict[str, Callable] = {
    **{f.__name__: f for f in (full, zeros, arange, permute, trans, reshape, ravel, broadcast_to)},
    "expand_dims": expand_dims,
    "view": reshape,
}
