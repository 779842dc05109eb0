"""Primitives that take a function of the program's: `ntl.map_elementwise` (the function mapped
over elements), reductions and scans with a combine function, `ntl.reduce` and
`ntl.associative_scan` (the function inlined at each step), and `xor_sum` and `reduce_or` made of
them (Triton's `cumprod` and others of its standard library, written in its language, are
inlined from Triton's own source and reach these).

Each function is inlined on whole tiles, as mapped over their elements: an `if` on an element's
value is if-converted (`compiler/frontend/per_element.py`), as Triton runs these functions on
scalars.

A reduction halves the axis log2(n) times, combining its first half with its second element by
element. A scan doubles its reach log2(n) times (Hillis and Steele): each element combines with
the one `d` places before it (after it, reversed), gathered. Both unroll over the axis, so its
size must be known when the program compiles; like Triton, they take the function to be
associative, and they combine in their own order (a float sum may round otherwise than a loop).
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.primitives.along_axis import _along, gather
from compiler.frontend.primitives.pairs import pick
from compiler.frontend.primitives.shapes import ravel
from compiler.ir.builder import broadcast_shape
from compiler.ir.core import Value
from compiler.ir.types import is_float

# (left tiles, right tiles) -> combined tiles, one per input
Combine = Callable[[tuple[Value, ...], tuple[Value, ...]], tuple[Value, ...]]


def _tiles(arith: Arith, input: object) -> tuple[Value, ...]:
    items = tuple(input) if isinstance(input, tuple | list) else (input,)
    return tuple(arith.as_value(item) for item in items)


def _user_combine(arith: Arith, combine_fn: object, what: str) -> Combine:
    if not callable(combine_fn):
        raise CompileError(
            f"ntl.{what}'s combine_fn is {combine_fn!r}; give a function (a Python def or a "
            "@triton.jit one) that combines two groups of values"
        )

    def combine(left: tuple[Value, ...], right: tuple[Value, ...]) -> tuple[Value, ...]:
        results = _per_element(combine_fn, *left, *right)
        results = results if isinstance(results, tuple | list) else (results,)
        if len(results) != len(left):
            raise CompileError(
                f"ntl.{what}'s combine_fn returned {len(results)} value(s) for {len(left)} "
                "input(s); return one per input"
            )
        return tuple(
            arith.cast(arith.as_value(r, like), like.type.dtype)
            for r, like in zip(results, left, strict=True)
        )

    return combine


def _per_element(function: object, *values: Value) -> object:
    """`function` on `values`, as mapped over their elements where it is the program's own."""
    mapped = getattr(function, "per_element", None)
    return function(*values) if mapped is None else mapped(*values)


def map_elementwise(arith: Arith, scalar_fn: object, *args: object, pack: int = 1) -> object:
    """`scalar_fn` applied to each element of `args` (broadcast to one shape): a tile, or a tuple
    of tiles where the function returns several values. `pack` (elements per call on Triton's
    side) changes nothing of the result."""
    if not callable(scalar_fn) or not args:
        raise CompileError(
            f"ntl.map_elementwise takes a function (a Python def or a @triton.jit one) and the "
            f"tiles to map it over, got {scalar_fn!r} and {len(args)} tile(s)"
        )
    if not isinstance(pack, int) or pack < 1:
        raise CompileError(f"ntl.map_elementwise's pack is {pack!r}; give a positive int")
    values = [arith.as_value(a) for a in args]
    shape = broadcast_shape(*(v.type for v in values))
    values = [arith.b.broadcast_to(v, shape) for v in values]
    results = _per_element(scalar_fn, *values)
    if isinstance(results, tuple | list):
        return tuple(arith.b.broadcast_to(arith.as_value(r), shape) for r in results)
    if results is None:
        raise CompileError("ntl.map_elementwise's function returned nothing; return its value")
    return arith.b.broadcast_to(arith.as_value(results), shape)


def _elementwise(arith: Arith, op_name: str) -> Combine:
    return lambda left, right: (arith.binary(op_name, left[0], right[0]),)


def _axis_size(x: Value, axis: int, what: str) -> int:
    size = x.type.shape[axis]
    if not isinstance(size, int):
        raise CompileError(
            f"ntl.{what} along a dim of size {size}: it unrolls over the dim, whose size must be "
            "known when the program compiles; give the block size as an int"
        )
    return size


def _drop(arith: Arith, x: Value, axis: int) -> Value:
    """`x` without its axis `axis` of size 1 (the max of one element is that element)."""
    dtype = x.type.dtype
    held = arith.cast(x, "i8") if dtype == "i1" else x
    return arith.cast(arith.b.value("reduce.max", held, axis=axis), dtype)


def _halves(arith: Arith, x: Value, axis: int) -> tuple[Value, Value]:
    shape = list(x.type.shape)
    split = shape[:axis] + [2, shape[axis] // 2] + shape[axis + 1 :]
    pairs = arith.b.value("tile.reshape", x, shape=split)
    return pick(arith, pairs, axis, 0), pick(arith, pairs, axis, 1)


def _reduced(arith, input, axis, combine: Combine, keep_dims: bool, what: str) -> object:
    tiles = _tiles(arith, input)
    if axis is None:  # every dim: the elements in one
        tiles, axis = tuple(ravel(arith, t) for t in tiles), 0
    axis %= len(tiles[0].type.shape)
    _axis_size(tiles[0], axis, what)
    while tiles[0].type.shape[axis] > 1:
        halves = [_halves(arith, t, axis) for t in tiles]
        tiles = combine(tuple(h[0] for h in halves), tuple(h[1] for h in halves))
    if not keep_dims:
        tiles = tuple(_drop(arith, t, axis) for t in tiles)
    return tiles if isinstance(input, tuple | list) else tiles[0]


def _scanned(arith, input, axis, combine: Combine, reverse: bool, what: str) -> object:
    tiles = _tiles(arith, input)
    axis %= len(tiles[0].type.shape)
    size = _axis_size(tiles[0], axis, what)
    shape = tiles[0].type.shape
    index = _along(arith, size, axis, shape)
    reach = 1
    while reach < size:
        if reverse:  # element i takes in the one `reach` after it
            source = arith.binary("arith.min", arith.binary("arith.add", index, reach), size - 1)
            valid = arith.compare("lt", index, size - reach)
        else:
            source = arith.binary("arith.max", arith.binary("arith.sub", index, reach), 0)
            valid = arith.compare("ge", index, reach)
        other = tuple(gather(arith, t, source, axis) for t in tiles)
        combined = combine(tiles, other) if reverse else combine(other, tiles)
        tiles = tuple(arith.where(valid, c, t) for c, t in zip(combined, tiles, strict=True))
        reach *= 2
    return tiles if isinstance(input, tuple | list) else tiles[0]


def reduce(arith: Arith, input: object, axis, combine_fn, keep_dims=False) -> object:  # noqa: A001
    combine = _user_combine(arith, combine_fn, "reduce")
    return _reduced(arith, input, axis, combine, keep_dims, "reduce")


def associative_scan(arith: Arith, input: object, axis, combine_fn, reverse=False) -> object:
    combine = _user_combine(arith, combine_fn, "associative_scan")
    return _scanned(arith, input, axis, combine, bool(reverse), "associative_scan")


def _integers(x: Value, what: str) -> Value:
    if is_float(x.type.dtype):
        raise CompileError(f"ntl.{what} takes integers, got {x.type}; cast to an integer type")
    return x


def xor_sum(arith: Arith, input: object, axis=None, keep_dims=False) -> Value:
    x = _integers(arith.as_value(input), "xor_sum")
    return _reduced(arith, x, axis, _elementwise(arith, "arith.xor"), keep_dims, "xor_sum")


def reduce_or(arith: Arith, input: object, axis, keep_dims=False) -> Value:
    x = _integers(arith.as_value(input), "reduce_or")
    return _reduced(arith, x, axis, _elementwise(arith, "arith.or"), keep_dims, "reduce_or")


PRIMITIVES: dict[str, Callable] = {
    f.__name__: f for f in (map_elementwise, reduce, associative_scan, xor_sum, reduce_or)
}
