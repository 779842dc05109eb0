"""Which tile accesses are boxes: rectangular, strided blocks of a buffer, bounds-checked per dim.

A tile access `mem.load(buffer, offsets, mask)` (or a store) touches a box when, for the tile's
index (i_0, ..., i_r-1),

    offsets[i] = sum_d (base_d + i_d) * stride_d      (base_d, stride_d: scalars of the program)
    mask[i]    = all_d (base_d + i_d < size_d)  and  guards   (guards: i1 scalars)

up to bounds the value ranges decide, lower bounds `base_d + i_d >= 0`, and a dim without a bound.
A scalar added to every offset (a batch's `b * stride`) is one more dim of extent 1, in front.
That is what a target's block copy takes (TileLang's `T.copy` from a strided view, Triton's block
pointers): the base, size and stride of each dim, with the out-of-bounds elements of a load zero.
The analysis reads the tile-level IR the frontend builds from index maps (`tile.arange` along a
dim, broadcast and shifted by scalars, scaled by a stride); anything else is no box.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from compiler.ir import Operation, TileType, Value
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.ranges import ValueRanges
from compiler.passes.helpers.rewrite import defining_op

# A scalar sum: the program's scalar values added together (empty: 0).
Terms = tuple[Value, ...]


@dataclass(frozen=True)
class Box:
    """One box: per dim its base (a sum of scalars), its size (a scalar, or None where the
    access checks no bound) and its stride (a scalar, None for 1); and the guards of the access.
    The dims are the tile's, after as many leading dims of extent 1 as scalars the offsets add."""

    bases: tuple[Terms, ...]
    sizes: tuple[Value | None, ...]
    strides: tuple[Value | None, ...]
    guards: tuple[Value, ...]


@dataclass(frozen=True)
class _Uniform:
    """The same scalar at every element."""

    value: Value


@dataclass(frozen=True)
class _Index:
    """Element i holds i_dim + base (dims of the value's own shape)."""

    dim: int
    base: Terms


@dataclass(frozen=True)
class _Strided:
    """Element i holds the sum over terms of (i_dim + base) * stride, and over `uniform` of
    base * stride (stride None: 1)."""

    terms: tuple[tuple[int, Terms, Value | None], ...]
    uniform: tuple[tuple[Value, Value | None], ...] = ()


def find_box(offsets: Value, mask: Value | None, ranges: ValueRanges) -> Box | None:
    """The box an access with these offsets and mask touches, or None."""
    shape = offsets.type.shape
    form = _strided(_index_form(offsets))
    if not isinstance(form, _Strided):
        return None
    by_dim = {dim: (base, stride) for dim, base, stride in form.terms}
    if len(by_dim) != len(form.terms) or set(by_dim) != set(range(len(shape))):
        return None
    if not all(_at_least_zero(ranges.bounds(base)[0]) for base, _ in form.uniform):
        return None
    conditions = _conditions(mask, ranges) if mask is not None else ({}, set(), [])
    if conditions is None:
        return None
    bounds, lower_bounded, guards = conditions
    for dim, (base, _) in by_dim.items():
        if dim in bounds and not _same_sum(bounds[dim][0], base):
            return None
        if dim in lower_bounded and not _same_sum(lower_bounded[dim], base):
            return None
        never_negative = all(_at_least_zero(ranges.bounds(v)[0]) for v in base)
        if dim not in lower_bounded and not never_negative:
            return None
    dims = range(len(shape))
    return Box(
        bases=(*((base,) for base, _ in form.uniform), *(by_dim[d][0] for d in dims)),
        sizes=(
            *(None for _ in form.uniform),
            *(bounds[d][1] if d in bounds else None for d in dims),
        ),
        strides=(*(stride for _, stride in form.uniform), *(by_dim[d][1] for d in dims)),
        guards=tuple(guards),
    )


def _at_least_zero(low: int | None) -> bool:
    return low is not None and low >= 0


def _same_sum(a: Terms, b: Terms) -> bool:
    return sorted(map(id, a)) == sorted(map(id, b))


def _index_form(value: Value) -> _Uniform | _Index | _Strided | None:
    """What `value` (an index tile or scalar) holds, in terms of its own dims."""
    if not isinstance(value.type, TileType):
        return _Uniform(value)
    op = defining_op(value)
    if op is None:
        return None
    if op.name == "tile.arange":
        return _Index(0, ())
    if op.name in ("tile.broadcast", "tile.expand_dims"):
        inner = _index_form(op.operands[0])
        return _moved(inner, _dim_map(op)) if inner is not None else None
    if op.name in ("arith.add", "arith.mul"):
        a, b = (_index_form(v) for v in op.operands)
        if a is None or b is None:
            return None
        return _added(a, b) if op.name == "arith.add" else _multiplied(a, b)
    return None


def _dim_map(op: Operation) -> Mapping[int, int]:
    """Where each dim of a broadcast's or expand_dims' operand goes in its result."""
    source = op.operands[0].type
    rank = len(source.shape) if isinstance(source, TileType) else 0
    if op.name == "tile.expand_dims":
        axis = op.attrs["axis"] % (rank + 1)
        return {d: d + (d >= axis) for d in range(rank)}
    lead = len(op.result.type.shape) - rank  # numpy-style: new dims in front
    return {d: d + lead for d in range(rank)}


def _moved(form, dims: Mapping[int, int]):
    if isinstance(form, _Uniform):
        return form
    if isinstance(form, _Index):
        return _Index(dims[form.dim], form.base)
    terms = tuple((dims[d], base, stride) for d, base, stride in form.terms)
    return _Strided(terms, form.uniform)


def _strided(form):
    """An index along a dim as that dim's term of stride 1 (a unit stride the launch
    specialized folds its product away); any other form as it is."""
    return _Strided(((form.dim, form.base, None),)) if isinstance(form, _Index) else form


def _added(a, b):
    if isinstance(b, _Uniform) and not isinstance(a, _Uniform):
        a, b = b, a
    if isinstance(a, _Uniform) and isinstance(b, _Index):
        return _Index(b.dim, (*b.base, a.value))
    if isinstance(a, _Uniform) and isinstance(b, _Strided):
        return _Strided(b.terms, (*b.uniform, _scaled(a.value)))
    a, b = _strided(a), _strided(b)
    if isinstance(a, _Strided) and isinstance(b, _Strided):
        return _Strided(a.terms + b.terms, a.uniform + b.uniform)
    return None


def _scaled(value: Value) -> tuple[Value, Value | None]:
    """A scalar addend as (base, stride): the factors of a product, else itself times 1."""
    op = defining_op(value)
    if op is not None and op.name == "arith.mul":
        return op.operands[0], op.operands[1]
    return value, None


def _multiplied(a, b):
    if isinstance(b, _Uniform) and not isinstance(a, _Uniform):
        a, b = b, a
    if isinstance(a, _Uniform) and isinstance(b, _Index):
        return _Strided(((b.dim, b.base, a.value),))
    return None


def _conditions(mask: Value, ranges: ValueRanges):
    """The mask as upper bounds per dim ({dim: (base, size)}), lower-bounded dims ({dim: base})
    and guards, or None where some part of it is none of those."""
    bounds: dict[int, tuple[Terms, Value]] = {}
    lower: dict[int, Terms] = {}
    guards: list[Value] = []
    for leaf, dims in _conjuncts(mask, None):
        if not isinstance(leaf.type, TileType):
            guards.append(leaf)
            continue
        op = defining_op(leaf)
        if op is None or op.name != "arith.cmp":
            return None
        if ranges.decide(op) is True:
            continue
        bound = _bound(op)
        if bound is None:
            return None
        kind, dim, base, size = bound
        dim = dims[dim]
        if kind == "upper":
            if dim in bounds and not (bounds[dim][1] is size and _same_sum(bounds[dim][0], base)):
                return None
            bounds[dim] = (base, size)
        else:
            lower[dim] = base
    return bounds, lower, guards


def _conjuncts(value: Value, dims: Mapping[int, int] | None):
    """The leaves of an `arith.and` tree, each with where its own dims go in the mask's."""
    if dims is None:
        rank = len(value.type.shape) if isinstance(value.type, TileType) else 0
        dims = {d: d for d in range(rank)}
    op = defining_op(value)
    if op is not None and op.name == "arith.and":
        for operand in op.operands:
            yield from _conjuncts(operand, dims)
    elif op is not None and op.name in ("tile.broadcast", "tile.expand_dims"):
        inner = _dim_map(op)
        yield from _conjuncts(op.operands[0], {d: dims[inner[d]] for d in inner})
    else:
        yield value, dims


_FLIPPED = {"lt": "gt", "gt": "lt", "ge": "le", "le": "ge"}


def _bound(cmp: Operation):
    """("upper", dim, base, size) for `base + i_dim < size`, ("lower", dim, base, None) for
    `base + i_dim >= 0`, else None."""
    a, b = (_index_form(v) for v in cmp.operands)
    pred = cmp.attrs["pred"]
    if isinstance(b, _Index) and isinstance(a, _Uniform):
        a, b, pred = b, a, _FLIPPED.get(pred)
    if not (isinstance(a, _Index) and isinstance(b, _Uniform)):
        return None
    if pred == "lt":
        return "upper", a.dim, a.base, b.value
    if pred == "ge" and constant_value(b.value) == 0:
        return "lower", a.dim, a.base, None
    return None
