"""Result-type rules of the mem dialect: buffer loads and stores, and the arrays of a program's
own (allocation, elements, block-wide dots, reductions and copies, box copies, vector lanes).

Each rule is named by its op in `compiler/ir/registry.py`; the value and control ops' rules and
`TypeRuleError` are in `compiler/ir/type_rules.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from compiler.ir.type_rules import REDUCE_KINDS, TypeRuleError
from compiler.ir.types import ArrayType, BufferType, ScalarType, Type, is_integer, value_type


def load(types: list[Type], attrs: dict) -> list[Type]:
    buffer, offsets, *mask = types
    if not isinstance(buffer, BufferType) or offsets.dtype != "index":
        raise TypeRuleError(f"expects (buffer, index offsets[, i1 mask]), got {buffer}, {offsets}")
    if mask and (mask[0].dtype != "i1" or mask[0].shape != offsets.shape):
        raise TypeRuleError(f"mask {mask[0]} must be i1 with the offsets' shape")
    return [value_type(buffer.dtype, offsets.shape)]


def store(types: list[Type], attrs: dict) -> list[Type]:
    buffer, offsets, value, *mask = types
    if not isinstance(buffer, BufferType) or offsets.dtype != "index":
        raise TypeRuleError(f"expects (buffer, index offsets, value[, mask]), got {buffer}")
    if value.shape != offsets.shape or value.dtype != buffer.dtype:
        raise TypeRuleError(f"value {value} must match {buffer} and the offsets' shape")
    if mask and (mask[0].dtype != "i1" or mask[0].shape != offsets.shape):
        raise TypeRuleError(f"mask {mask[0]} must be i1 with the offsets' shape")
    return []


ATOMIC_KINDS = ("add", "max", "min", "and", "or", "xor", "xchg", "cas")
BITWISE_ATOMICS = ("and", "or", "xor", "cas")


def atomic(types: list[Type], attrs: dict) -> list[Type]:
    """Like a store, whose every element updates atomically (combined with what it finds by the
    arith op of the kind's name; `xchg` replaces it); the result holds the value each element saw
    before its update (the interpreter takes the elements in order). `cas` takes no mask but the
    value to compare with: (buffer, offsets, value, compare) replaces what equals `compare`."""
    kind = attrs["kind"]
    if kind not in ATOMIC_KINDS:
        raise TypeRuleError(f"unknown atomic kind {kind!r}; kinds: {', '.join(ATOMIC_KINDS)}")
    if kind == "cas":
        if len(types) != 4 or types[3] != types[2]:
            raise TypeRuleError("atomic cas takes (buffer, offsets, value, compare), the two alike")
        if types[2].dtype not in ("i16", "i32", "i64", "u16", "u32", "u64"):
            raise TypeRuleError(
                f"atomic cas takes 16-, 32- or 64-bit integers, got {types[2]}; pass the tensor "
                "as integers of its width (x.view(torch.int32)) and compare the bits"
            )
    store(types[:3] if kind == "cas" else types, attrs)
    if kind in BITWISE_ATOMICS and not is_integer(types[2].dtype):
        raise TypeRuleError(
            f"atomic {kind} takes integers, got {types[2]}; pass the tensor as integers of its "
            "width (x.view(torch.int32)) and bitcast the values"
        )
    return [types[2]]


def alloc(types: list[Type], attrs: dict) -> list[Type]:
    if not (isinstance(attrs["size"], int) and attrs["size"] > 0):
        raise TypeRuleError(f"size must be a positive int, got {attrs['size']!r}")
    value_type(attrs["dtype"], ())
    if "operand_dtype" in attrs:
        value_type(attrs["operand_dtype"], ())
    return [ArrayType(attrs["dtype"], attrs["size"])]


def read(types: list[Type], attrs: dict) -> list[Type]:
    array, index = types
    if not isinstance(array, ArrayType) or index != ScalarType("index"):
        raise TypeRuleError(f"expects (array, index), got {array}, {index}")
    return [ScalarType(array.dtype)]


def owned_slots(types: list[Type], attrs: dict) -> list[Type]:
    (array,) = types
    if not isinstance(array, ArrayType):
        raise TypeRuleError(f"expects an array, got {array}")
    return [ScalarType("index")]


def owned_position(types: list[Type], attrs: dict) -> list[Type]:
    array, slot = types
    if not isinstance(array, ArrayType) or slot != ScalarType("index"):
        raise TypeRuleError(f"expects (array, index slot), got {array}, {slot}")
    return [ScalarType("index")]


def write(types: list[Type], attrs: dict) -> list[Type]:
    array, index, value = types
    if not isinstance(array, ArrayType) or index != ScalarType("index"):
        raise TypeRuleError(f"expects (array, index, value), got {array}, {index}")
    if value != ScalarType(array.dtype):
        raise TypeRuleError(f"value {value} must be a {array.dtype} scalar for {array}")
    return []


def array_dot(types: list[Type], attrs: dict) -> list[Type]:
    """(a, b, c) arrays holding row-major [m, k], [k, n] (or [n, k]: `transpose_b`) and [m, n]."""
    dims = {name: attrs[name] for name in ("m", "n", "k")}
    if not all(isinstance(d, int) and d > 0 for d in dims.values()):
        raise TypeRuleError(f"m, n and k must be positive ints, got {dims}")
    m, n, k = dims["m"], dims["n"], dims["k"]
    if not isinstance(attrs["accumulate"], bool):
        raise TypeRuleError(f"accumulate must be true or false, got {attrs['accumulate']!r}")
    if not isinstance(attrs.get("transpose_b", False), bool):
        raise TypeRuleError(f"transpose_b must be true or false, got {attrs['transpose_b']!r}")
    if not all(isinstance(t, ArrayType) for t in types):
        raise TypeRuleError(f"expects three arrays, got {', '.join(map(str, types))}")
    sizes = [t.size for t in types]
    if sizes != [m * k, k * n, m * n]:
        raise TypeRuleError(f"arrays of {sizes} elements do not hold [{m}, {k}] x [{k}, {n}]")
    if types[0].dtype != types[1].dtype:
        raise TypeRuleError(f"operands must share a dtype, got {types[0]} and {types[1]}")
    return []


def array_reduce(types: list[Type], attrs: dict) -> list[Type]:
    """(source, result) arrays: the source holds [outer, length, inner] row-major, the result
    [outer, inner], the source combined along its middle dim."""
    shape, kind = attrs["shape"], attrs["kind"]
    if kind not in REDUCE_KINDS:
        raise TypeRuleError(f"kind must be one of {', '.join(REDUCE_KINDS)}, got {kind!r}")
    if not (len(shape) == 3 and all(isinstance(d, int) and d > 0 for d in shape)):
        raise TypeRuleError(f"shape must be three positive ints [outer, length, inner]: {shape}")
    if not all(isinstance(t, ArrayType) for t in types) or types[0].dtype != types[1].dtype:
        raise TypeRuleError(f"expects two arrays of one dtype, got {', '.join(map(str, types))}")
    outer, length, inner = shape
    if [t.size for t in types] != [outer * length * inner, outer * inner]:
        raise TypeRuleError(
            f"arrays of {[t.size for t in types]} elements do not hold {shape} and its result"
        )
    return []


def copy(types: list[Type], attrs: dict) -> list[Type]:
    source, destination = types
    if not (isinstance(source, ArrayType) and source == destination):
        raise TypeRuleError(f"expects two arrays of one type, got {source} and {destination}")
    if math.prod(attrs["shape"]) != source.size:
        raise TypeRuleError(f"shape {attrs['shape']} does not hold the {source.size} elements")
    return []


# Where a box copy's index scalars stand among its operands, and how they split.
BOX_SCALARS = {"mem.copy_box_in": slice(1, -1), "mem.copy_box_out": slice(2, None)}


def split_box(scalars: Sequence) -> tuple[Sequence, Sequence, Sequence]:
    """A box copy's index scalars as its bases, sizes and strides, one of each per dim."""
    rank = len(scalars) // 3
    return scalars[:rank], scalars[rank : 2 * rank], scalars[2 * rank : 3 * rank]


def _box(array: Type, buffer: Type, scalars: list[Type], attrs: dict) -> list[Type]:
    """A box copy between an array holding a tile of `shape` row-major and a buffer: one base,
    one size and one stride (index scalars) per dim of the box, which is the tile's dims after
    any number of leading dims of extent 1."""
    shape = attrs["shape"]
    if not (isinstance(shape, list) and shape and all(isinstance(d, int) and d > 0 for d in shape)):
        raise TypeRuleError(f"shape must be a list of positive ints, got {shape!r}")
    if not (isinstance(array, ArrayType) and isinstance(buffer, BufferType)):
        raise TypeRuleError(f"expects an array and a buffer, got {array} and {buffer}")
    if array.dtype != buffer.dtype or array.size != math.prod(shape):
        raise TypeRuleError(f"{array} does not hold a {shape} box of {buffer}")
    rank, left = divmod(len(scalars), 3)
    if left or rank < len(shape) or any(t != ScalarType("index") for t in scalars):
        raise TypeRuleError(
            f"a box of a {shape} tile takes 3 index scalars (base, size, stride) per dim, at "
            f"least {3 * len(shape)}, got {', '.join(map(str, scalars)) or 'none'}"
        )
    return []


def _lanes(array: Type, buffer: Type, offset: Type, attrs: dict) -> list[Type]:
    """One thread's `lanes` consecutive elements of a buffer, from an offset, and an array of
    as many."""
    lanes = attrs["lanes"]
    if not (isinstance(lanes, int) and lanes > 1 and lanes & (lanes - 1) == 0):
        raise TypeRuleError(f"lanes must be a power of two above 1, got {lanes!r}")
    if not (isinstance(array, ArrayType) and isinstance(buffer, BufferType)):
        raise TypeRuleError(f"expects an array and a buffer, got {array} and {buffer}")
    if array.dtype != buffer.dtype or array.size != lanes or offset != ScalarType("index"):
        raise TypeRuleError(
            f"{array} must hold the {lanes} lanes of {buffer}, from an index offset, got {offset}"
        )
    return []


def load_lanes(types: list[Type], attrs: dict) -> list[Type]:
    buffer, offset, array = types
    return _lanes(array, buffer, offset, attrs)


def store_lanes(types: list[Type], attrs: dict) -> list[Type]:
    array, buffer, offset = types
    return _lanes(array, buffer, offset, attrs)


def box_in(types: list[Type], attrs: dict) -> list[Type]:
    buffer, array = types[0], types[-1]
    return _box(array, buffer, types[BOX_SCALARS["mem.copy_box_in"]], attrs)


def box_out(types: list[Type], attrs: dict) -> list[Type]:
    array, buffer = types[:2]
    return _box(array, buffer, types[BOX_SCALARS["mem.copy_box_out"]], attrs)
