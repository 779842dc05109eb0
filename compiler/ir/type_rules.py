"""Result-type rules of the value and control ops, and the error they raise.

A rule takes an op's operand types and attributes and returns its result types, or raises
`TypeRuleError`; `compiler/ir/registry.py` names each op's rule. This module covers arith, math,
select, linalg, tile, scan, reduce, index and scf; the mem dialect's rules are in
`compiler/ir/memory_rules.py`. The vocabularies a rule checks (comparison predicates, dot
precisions, reduction kinds) live beside it.
"""

from __future__ import annotations

import math
import operator

from compiler.ir.types import (
    BIT_WIDTHS,
    ScalarType,
    TileType,
    Type,
    is_float,
    is_integer,
    value_type,
)


class TypeRuleError(ValueError):
    """Operands or attributes that do not fit an op's type rule."""


def same(types: list[Type], attrs: dict) -> list[Type]:
    first = types[0] if types else None
    for t in types:  # `is` first: operands mostly share a type object, `!=` is a Python call
        if t is not first and t != first:
            first = None
            break
    if first is None:
        raise TypeRuleError(f"operands must have one type, got {', '.join(map(str, types))}")
    return [first]


def float_same(types: list[Type], attrs: dict) -> list[Type]:
    result = same(types, attrs)
    if not is_float(types[0].dtype):
        raise TypeRuleError(f"expects floating-point operands, got {types[0]}")
    return result


def fused(types: list[Type], attrs: dict) -> list[Type]:
    """math.fma: f32 or f64, whose fused multiply-add every target has; a narrower float's
    product and sum are computed in f64 instead, which rounds the result once as well."""
    result = float_same(types, attrs)
    if types[0].dtype not in ("f32", "f64"):
        raise TypeRuleError(f"expects f32 or f64 operands, got {types[0]}")
    return result


def integer_same(types: list[Type], attrs: dict) -> list[Type]:
    result = same(types, attrs)
    if not is_integer(types[0].dtype):
        raise TypeRuleError(f"expects integer operands, got {types[0]}")
    return result


def bitwise(types: list[Type], attrs: dict) -> list[Type]:
    """and, or, xor: of integers or of i1 (logical), never of floats' bits."""
    result = same(types, attrs)
    if not (is_integer(types[0].dtype) or types[0].dtype == "i1"):
        raise TypeRuleError(
            f"expects integer or boolean operands, got {types[0]}; cast to an integer type "
            "first, or compare to get booleans"
        )
    return result


def boolean_same(types: list[Type], attrs: dict) -> list[Type]:
    result = same(types, attrs)
    if types[0].dtype != "i1":
        raise TypeRuleError(f"expects i1 operands, got {types[0]}")
    return result


# The meaning of `arith.cmp`'s predicates, for anything that evaluates them at compile time.
COMPARISONS = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}


def compare(types: list[Type], attrs: dict) -> list[Type]:
    same(types, attrs)
    if attrs["pred"] not in COMPARISONS:
        raise TypeRuleError(f"unknown predicate {attrs['pred']!r}")
    return [value_type("i1", types[0].shape)]


def float_test(types: list[Type], attrs: dict) -> list[Type]:
    float_same(types, attrs)
    return [value_type("i1", types[0].shape)]


def cast(types: list[Type], attrs: dict) -> list[Type]:
    return [value_type(attrs["dtype"], types[0].shape)]


def bitcast(types: list[Type], attrs: dict) -> list[Type]:
    source, target = types[0].dtype, attrs["dtype"]
    widths = BIT_WIDTHS.get(source), BIT_WIDTHS.get(target)
    if None in widths or widths[0] != widths[1]:
        raise TypeRuleError(
            f"bitcast from {source} to {target}: both need the same fixed width in bits"
        )
    return cast(types, attrs)


def where(types: list[Type], attrs: dict) -> list[Type]:
    cond, a, b = types
    if cond.dtype != "i1" or a != b or cond.shape != a.shape:
        raise TypeRuleError(f"expects (i1, T, T) of one shape, got {cond}, {a}, {b}")
    return [a]


# The combinations `reduce.*` (of a tile) and `mem.reduce` (of an array) take.
REDUCE_KINDS = ("sum", "max", "min")


def reduce(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    axis = attrs["axis"]
    if not isinstance(source, TileType) or not 0 <= axis < len(source.shape):
        raise TypeRuleError(f"axis {axis} is out of range for {source}")
    shape = source.shape[:axis] + source.shape[axis + 1 :]
    return [value_type(source.dtype, shape)]


def along_axis(types: list[Type], attrs: dict) -> list[Type]:
    """A scan or a sort: the same tile back, rearranged or accumulated along `axis`."""
    (source,) = types
    if not isinstance(source, TileType) or not 0 <= attrs["axis"] < len(source.shape):
        raise TypeRuleError(f"axis {attrs['axis']} is out of range for {source}")
    return [source]


def sort(types: list[Type], attrs: dict) -> list[Type]:
    if not is_integer(types[0].dtype):
        raise TypeRuleError(
            f"tile.sort sorts integers, got {types[0]}; sort a float through its ordered bits"
        )
    return along_axis(types, attrs)


def gather(types: list[Type], attrs: dict) -> list[Type]:
    source, index = types
    axis = attrs["axis"]
    if not (isinstance(source, TileType) and isinstance(index, TileType)):
        raise TypeRuleError(f"expects two tiles, got {source}, {index}")
    if not is_integer(index.dtype) or len(index.shape) != len(source.shape):
        raise TypeRuleError(f"expects an integer index of the source's rank, got {index}")
    if not 0 <= axis < len(source.shape):
        raise TypeRuleError(f"axis {axis} is out of range for {source}")
    pairs = zip(source.shape, index.shape, strict=True)
    if any(s != i for d, (s, i) in enumerate(pairs) if d != axis):
        raise TypeRuleError(f"{index} must match {source} except along axis {axis}")
    return [value_type(source.dtype, index.shape)]


# How exactly a dot multiplies: "ieee" (the default) exactly; "tf32" permits products of f32
# operands rounded to TF32 first (Triton's default for f32 dots), so tensor cores may take them.
DOT_PRECISIONS = ("ieee", "tf32")


def dot(types: list[Type], attrs: dict) -> list[Type]:
    a, b = types
    if not (isinstance(a, TileType) and isinstance(b, TileType)):
        raise TypeRuleError(f"expects two 2-D tiles, got {a}, {b}")
    if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
        raise TypeRuleError(f"expects [M, K] x [K, N] tiles, got {a}, {b}")
    precision = attrs.get("precision", "ieee")
    if precision not in DOT_PRECISIONS:
        raise TypeRuleError(
            f"precision must be one of {', '.join(DOT_PRECISIONS)}, got {precision!r}"
        )
    if precision == "tf32" and (a.dtype, b.dtype) != ("f32", "f32"):
        raise TypeRuleError(f"precision tf32 is for f32 operands, got {a.dtype} and {b.dtype}")
    return [value_type(attrs["dtype"], (a.shape[0], b.shape[1]))]


def arange(types: list[Type], attrs: dict) -> list[Type]:
    return [value_type("index", (attrs["size"],))]


def broadcast(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    shape = tuple(attrs["shape"])
    if source.shape and (
        len(source.shape) != len(shape)
        or any(s not in (1, d) for s, d in zip(source.shape, shape, strict=True))
    ):
        raise TypeRuleError(f"cannot broadcast {source} to {list(shape)}")
    return [value_type(source.dtype, shape)]


def expand_dims(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    axis = attrs["axis"]
    if not 0 <= axis <= len(source.shape):
        raise TypeRuleError(f"axis {axis} is out of range for {source}")
    return [value_type(source.dtype, source.shape[:axis] + (1,) + source.shape[axis:])]


def trans(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    perm = tuple(attrs["perm"])
    if sorted(perm) != list(range(len(source.shape))):
        raise TypeRuleError(f"perm {list(perm)} does not permute the dims of {source}")
    return [value_type(source.dtype, tuple(source.shape[p] for p in perm))]


def reshape(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    shape = tuple(attrs["shape"])
    if all(isinstance(d, int) for d in source.shape + shape):
        if math.prod(source.shape) != math.prod(shape):
            raise TypeRuleError(f"cannot reshape {source} to {list(shape)}")
    return [value_type(source.dtype, shape)]


def index(types: list[Type], attrs: dict) -> list[Type]:
    return [value_type("index", ())]


def for_loop(types: list[Type], attrs: dict) -> list[Type]:
    if any(t != ScalarType("index") for t in types[:3]):
        raise TypeRuleError("lower bound, upper bound and step must be index scalars")
    for name in ("stages", "lanes"):
        count = attrs.get(name, 1)
        if not (isinstance(count, int) and not isinstance(count, bool) and count > 0):
            raise TypeRuleError(f"{name} must be a positive int, got {count!r}")
    return list(types[3:])


def while_loop(types: list[Type], attrs: dict) -> list[Type]:
    return list(types)


def no_results(types: list[Type], attrs: dict) -> list[Type]:
    return []


def indices(types: list[Type], attrs: dict) -> list[Type]:
    if any(t != ScalarType("index") for t in types):
        raise TypeRuleError(f"expects index scalars, got {', '.join(map(str, types))}")
    return []


def parallel(types: list[Type], attrs: dict) -> list[Type]:
    shape = attrs.get("shape")
    if shape is not None and not (
        isinstance(shape, list | tuple)
        and len(shape) > 1
        and all(isinstance(d, int) and d > 0 for d in shape)
    ):
        raise TypeRuleError(f"shape must list two or more positive ints, got {shape!r}")
    return indices(types, attrs)
