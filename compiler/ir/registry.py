"""The closed registry of IR operations.

Every op the compiler may create is listed here with its arity, attributes, effects and result-type
rule. Ops are fine-grained primitives (arith, math, reduce, linalg, scf, select, tile, index, mem):
a kernel is a composition of them, never a node named after an operator.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compiler.ir.types import (
    BIT_WIDTHS,
    ArrayType,
    BufferType,
    ScalarType,
    TileType,
    Type,
    is_float,
    is_integer,
    value_type,
)

Infer = Callable[[list[Type], dict], list[Type]]


class TypeRuleError(ValueError):
    """Operands or attributes that do not fit an op's type rule."""


@dataclass(frozen=True)
class OpDef:
    name: str
    operands: tuple[int, int | None]  # (min, max); max None means variadic
    infer: Infer | None  # None: result types are given explicitly (constant, scf.if)
    attrs: tuple[str, ...] = ()
    optional_attrs: tuple[str, ...] = ()
    regions: int = 0
    effect: str = "pure"  # pure | read | write | alloc | control
    description: str = ""
    results: int | None = field(default=None)  # fixed count when infer is None; None = any

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]


def _same_shape(types: list[Type]) -> tuple:
    shapes = {t.shape for t in types}
    if len(shapes) != 1:
        raise TypeRuleError(f"operands must have one shape, got {', '.join(map(str, types))}")
    return shapes.pop()


def _same(types: list[Type], attrs: dict) -> list[Type]:
    first = types[0] if types else None
    for t in types:  # `is` first: operands mostly share a type object, `!=` is a Python call
        if t is not first and t != first:
            first = None
            break
    if first is None:
        raise TypeRuleError(f"operands must have one type, got {', '.join(map(str, types))}")
    return [first]


def _float_same(types: list[Type], attrs: dict) -> list[Type]:
    result = _same(types, attrs)
    if not is_float(types[0].dtype):
        raise TypeRuleError(f"expects floating-point operands, got {types[0]}")
    return result


def _integer_same(types: list[Type], attrs: dict) -> list[Type]:
    result = _same(types, attrs)
    if not is_integer(types[0].dtype):
        raise TypeRuleError(f"expects integer operands, got {types[0]}")
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


def _compare(types: list[Type], attrs: dict) -> list[Type]:
    _same(types, attrs)
    if attrs["pred"] not in COMPARISONS:
        raise TypeRuleError(f"unknown predicate {attrs['pred']!r}")
    return [value_type("i1", types[0].shape)]


def _float_test(types: list[Type], attrs: dict) -> list[Type]:
    _float_same(types, attrs)
    return [value_type("i1", types[0].shape)]


def _cast(types: list[Type], attrs: dict) -> list[Type]:
    return [value_type(attrs["dtype"], types[0].shape)]


def _bitcast(types: list[Type], attrs: dict) -> list[Type]:
    source, target = types[0].dtype, attrs["dtype"]
    widths = BIT_WIDTHS.get(source), BIT_WIDTHS.get(target)
    if None in widths or widths[0] != widths[1]:
        raise TypeRuleError(
            f"bitcast from {source} to {target}: both need the same fixed width in bits"
        )
    return _cast(types, attrs)


def _where(types: list[Type], attrs: dict) -> list[Type]:
    cond, a, b = types
    if cond.dtype != "i1" or a != b or cond.shape != a.shape:
        raise TypeRuleError(f"expects (i1, T, T) of one shape, got {cond}, {a}, {b}")
    return [a]


def _reduce(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    axis = attrs["axis"]
    if not isinstance(source, TileType) or not 0 <= axis < len(source.shape):
        raise TypeRuleError(f"axis {axis} is out of range for {source}")
    shape = source.shape[:axis] + source.shape[axis + 1 :]
    return [value_type(source.dtype, shape)]


def _along_axis(types: list[Type], attrs: dict) -> list[Type]:
    """A scan or a sort: the same tile back, rearranged or accumulated along `axis`."""
    (source,) = types
    if not isinstance(source, TileType) or not 0 <= attrs["axis"] < len(source.shape):
        raise TypeRuleError(f"axis {attrs['axis']} is out of range for {source}")
    return [source]


def _sort(types: list[Type], attrs: dict) -> list[Type]:
    if not is_integer(types[0].dtype):
        raise TypeRuleError(
            f"tile.sort sorts integers, got {types[0]}; sort a float through its ordered bits"
        )
    return _along_axis(types, attrs)


def _gather(types: list[Type], attrs: dict) -> list[Type]:
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


def _dot(types: list[Type], attrs: dict) -> list[Type]:
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


def _arange(types: list[Type], attrs: dict) -> list[Type]:
    return [value_type("index", (attrs["size"],))]


def _broadcast(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    shape = tuple(attrs["shape"])
    if source.shape and (
        len(source.shape) != len(shape)
        or any(s not in (1, d) for s, d in zip(source.shape, shape, strict=True))
    ):
        raise TypeRuleError(f"cannot broadcast {source} to {list(shape)}")
    return [value_type(source.dtype, shape)]


def _expand_dims(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    axis = attrs["axis"]
    if not 0 <= axis <= len(source.shape):
        raise TypeRuleError(f"axis {axis} is out of range for {source}")
    return [value_type(source.dtype, source.shape[:axis] + (1,) + source.shape[axis:])]


def _trans(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    perm = tuple(attrs["perm"])
    if sorted(perm) != list(range(len(source.shape))):
        raise TypeRuleError(f"perm {list(perm)} does not permute the dims of {source}")
    return [value_type(source.dtype, tuple(source.shape[p] for p in perm))]


def _reshape(types: list[Type], attrs: dict) -> list[Type]:
    (source,) = types
    shape = tuple(attrs["shape"])
    if all(isinstance(d, int) for d in source.shape + shape):
        if math.prod(source.shape) != math.prod(shape):
            raise TypeRuleError(f"cannot reshape {source} to {list(shape)}")
    return [value_type(source.dtype, shape)]


def _index(types: list[Type], attrs: dict) -> list[Type]:
    return [value_type("index", ())]


def _load(types: list[Type], attrs: dict) -> list[Type]:
    buffer, offsets, *mask = types
    if not isinstance(buffer, BufferType) or offsets.dtype != "index":
        raise TypeRuleError(f"expects (buffer, index offsets[, i1 mask]), got {buffer}, {offsets}")
    if mask and (mask[0].dtype != "i1" or mask[0].shape != offsets.shape):
        raise TypeRuleError(f"mask {mask[0]} must be i1 with the offsets' shape")
    return [value_type(buffer.dtype, offsets.shape)]


def _store(types: list[Type], attrs: dict) -> list[Type]:
    buffer, offsets, value, *mask = types
    if not isinstance(buffer, BufferType) or offsets.dtype != "index":
        raise TypeRuleError(f"expects (buffer, index offsets, value[, mask]), got {buffer}")
    if value.shape != offsets.shape or value.dtype != buffer.dtype:
        raise TypeRuleError(f"value {value} must match {buffer} and the offsets' shape")
    if mask and (mask[0].dtype != "i1" or mask[0].shape != offsets.shape):
        raise TypeRuleError(f"mask {mask[0]} must be i1 with the offsets' shape")
    return []


ATOMIC_KINDS = ("add", "max", "min")


def _atomic(types: list[Type], attrs: dict) -> list[Type]:
    """Like a store, whose every element updates atomically; the result holds the value each
    element saw before its update (the interpreter takes the elements in order)."""
    if attrs["kind"] not in ATOMIC_KINDS:
        raise TypeRuleError(
            f"unknown atomic kind {attrs['kind']!r}; kinds: {', '.join(ATOMIC_KINDS)}"
        )
    _store(types, attrs)
    return [types[2]]


def _for(types: list[Type], attrs: dict) -> list[Type]:
    if any(t != ScalarType("index") for t in types[:3]):
        raise TypeRuleError("lower bound, upper bound and step must be index scalars")
    for name in ("stages", "lanes"):
        count = attrs.get(name, 1)
        if not (isinstance(count, int) and not isinstance(count, bool) and count > 0):
            raise TypeRuleError(f"{name} must be a positive int, got {count!r}")
    return list(types[3:])


def _none(types: list[Type], attrs: dict) -> list[Type]:
    return []


def _indices(types: list[Type], attrs: dict) -> list[Type]:
    if any(t != ScalarType("index") for t in types):
        raise TypeRuleError(f"expects index scalars, got {', '.join(map(str, types))}")
    return []


def _parallel(types: list[Type], attrs: dict) -> list[Type]:
    shape = attrs.get("shape")
    if shape is not None and not (
        isinstance(shape, list | tuple)
        and len(shape) > 1
        and all(isinstance(d, int) and d > 0 for d in shape)
    ):
        raise TypeRuleError(f"shape must list two or more positive ints, got {shape!r}")
    return _indices(types, attrs)


def _alloc(types: list[Type], attrs: dict) -> list[Type]:
    if not (isinstance(attrs["size"], int) and attrs["size"] > 0):
        raise TypeRuleError(f"size must be a positive int, got {attrs['size']!r}")
    value_type(attrs["dtype"], ())
    if "operand_dtype" in attrs:
        value_type(attrs["operand_dtype"], ())
    return [ArrayType(attrs["dtype"], attrs["size"])]


def _read(types: list[Type], attrs: dict) -> list[Type]:
    array, index = types
    if not isinstance(array, ArrayType) or index != ScalarType("index"):
        raise TypeRuleError(f"expects (array, index), got {array}, {index}")
    return [ScalarType(array.dtype)]


def _owned_slots(types: list[Type], attrs: dict) -> list[Type]:
    (array,) = types
    if not isinstance(array, ArrayType):
        raise TypeRuleError(f"expects an array, got {array}")
    return [ScalarType("index")]


def _owned_position(types: list[Type], attrs: dict) -> list[Type]:
    array, slot = types
    if not isinstance(array, ArrayType) or slot != ScalarType("index"):
        raise TypeRuleError(f"expects (array, index slot), got {array}, {slot}")
    return [ScalarType("index")]


def _write(types: list[Type], attrs: dict) -> list[Type]:
    array, index, value = types
    if not isinstance(array, ArrayType) or index != ScalarType("index"):
        raise TypeRuleError(f"expects (array, index, value), got {array}, {index}")
    if value != ScalarType(array.dtype):
        raise TypeRuleError(f"value {value} must be a {array.dtype} scalar for {array}")
    return []


def _array_dot(types: list[Type], attrs: dict) -> list[Type]:
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


REDUCE_KINDS = ("sum", "max", "min")


def _array_reduce(types: list[Type], attrs: dict) -> list[Type]:
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


def _copy(types: list[Type], attrs: dict) -> list[Type]:
    source, destination = types
    if not (isinstance(source, ArrayType) and source == destination):
        raise TypeRuleError(f"expects two arrays of one type, got {source} and {destination}")
    if math.prod(attrs["shape"]) != source.size:
        raise TypeRuleError(f"shape {attrs['shape']} does not hold the {source.size} elements")
    return []


# Where a box copy's index scalars stand among its operands, and how they split.
BOX_SCALARS = {"mem.copy_box_in": slice(1, -1), "mem.copy_box_out": slice(2, None)}
# Ops that write a buffer (global memory), not an array of the program's own.
BUFFER_WRITES = frozenset({"mem.store", "mem.atomic", "mem.store_lanes", "mem.copy_box_out"})


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


def _load_lanes(types: list[Type], attrs: dict) -> list[Type]:
    buffer, offset, array = types
    return _lanes(array, buffer, offset, attrs)


def _store_lanes(types: list[Type], attrs: dict) -> list[Type]:
    array, buffer, offset = types
    return _lanes(array, buffer, offset, attrs)


def _box_in(types: list[Type], attrs: dict) -> list[Type]:
    buffer, array = types[0], types[-1]
    return _box(array, buffer, types[BOX_SCALARS["mem.copy_box_in"]], attrs)


def _box_out(types: list[Type], attrs: dict) -> list[Type]:
    array, buffer = types[:2]
    return _box(array, buffer, types[BOX_SCALARS["mem.copy_box_out"]], attrs)


def _defs() -> list[OpDef]:
    binary = {
        "add": "a + b",
        "sub": "a - b",
        "mul": "a * b",
        "div": "a / b (true division)",
        "idiv": "integer a / b, truncating toward zero",
        "irem": "integer remainder, sign of a",
        "max": "elementwise maximum",
        "min": "elementwise minimum",
        "and": "bitwise/logical and",
        "or": "bitwise/logical or",
        "xor": "bitwise/logical xor",
    }
    unary_math = {
        "exp": "e ** x",
        "exp2": "2 ** x",
        "log": "natural logarithm",
        "log2": "base-2 logarithm",
        "sqrt": "square root",
        "rsqrt": "1 / sqrt(x)",
        "abs": "absolute value",
        "sin": "sine",
        "cos": "cosine",
        "floor": "largest integral value <= x",
        "ceil": "smallest integral value >= x",
        "erf": "error function",
        "tanh": "hyperbolic tangent",
        "atan": "arc tangent",
    }
    defs = [OpDef(f"arith.{n}", (2, 2), _same, description=d) for n, d in binary.items()]
    shifts = {"shl": "a << b", "shr": "a >> b: arithmetic on signed integers, logical on unsigned"}
    defs += [OpDef(f"arith.{n}", (2, 2), _integer_same, description=d) for n, d in shifts.items()]
    defs += [
        OpDef("arith.neg", (1, 1), _same, description="-a"),
        OpDef("arith.not", (1, 1), _same, description="logical not of an i1"),
        OpDef("arith.constant", (0, 0), None, attrs=("value",), results=1, description="splat"),
        OpDef("arith.cmp", (2, 2), _compare, attrs=("pred",), description="comparison -> i1"),
        OpDef("arith.cast", (1, 1), _cast, attrs=("dtype",), description="convert element type"),
        OpDef(
            "arith.bitcast",
            (1, 1),
            _bitcast,
            attrs=("dtype",),
            description="the same bits as another element type of the same width",
        ),
    ]
    defs += [OpDef(f"math.{n}", (1, 1), _float_same, description=d) for n, d in unary_math.items()]
    defs += [
        OpDef("math.pow", (2, 2), _float_same, description="a ** b"),
        OpDef("math.isnan", (1, 1), _float_test, description="x is NaN -> i1"),
        OpDef("select.where", (3, 3), _where, description="cond ? a : b, elementwise"),
        OpDef(
            "linalg.dot",
            (2, 2),
            _dot,
            attrs=("dtype",),
            optional_attrs=("precision",),
            description="[M,K] x [K,N]",
        ),
        OpDef("tile.arange", (0, 0), _arange, attrs=("size",), description="0 .. size-1"),
        OpDef("tile.broadcast", (1, 1), _broadcast, attrs=("shape",), description="splat/stretch"),
        OpDef("tile.expand_dims", (1, 1), _expand_dims, attrs=("axis",), description="insert a 1"),
        OpDef("tile.reshape", (1, 1), _reshape, attrs=("shape",), description="same elements"),
        OpDef("tile.trans", (1, 1), _trans, attrs=("perm",), description="permute tile dims"),
        OpDef(
            "tile.sort",
            (1, 1),
            _sort,
            attrs=("axis", "descending"),
            description="integers in order along axis (equal ones are indistinguishable)",
        ),
        OpDef(
            "tile.gather",
            (2, 2),
            _gather,
            attrs=("axis",),
            description="result[.., i, ..] = source[.., index[.., i, ..], ..] along axis",
        ),
        OpDef(
            "scan.sum",
            (1, 1),
            _along_axis,
            attrs=("axis", "reverse"),
            description="running sum along axis (from the end if reverse)",
        ),
        OpDef("index.program_id", (0, 0), _index, attrs=("axis",), description="program id"),
        OpDef("index.meta", (0, 0), _index, attrs=("name",), description="meta symbol's value"),
        OpDef("mem.load", (2, 3), _load, optional_attrs=("other", "scope"), effect="read"),
        OpDef("mem.store", (3, 4), _store, optional_attrs=("scope",), effect="write"),
        OpDef(
            "mem.atomic",
            (3, 4),
            _atomic,
            attrs=("kind",),
            optional_attrs=("scope",),
            effect="write",
            description="atomic read-modify-write (add, max, min) per element; old values",
        ),
        OpDef(
            "scf.for",
            (3, None),
            _for,
            regions=1,
            # stages: software pipelining (ssa.pipeline_loops); lanes: the loop over a thread's
            # consecutive positions (ssa.lower_parallel), whose accesses may go as vectors
            optional_attrs=("stages", "lanes"),
            effect="control",
            description="counted loop",
        ),
        OpDef("scf.if", (1, 1), None, regions=2, effect="control", description="two-way branch"),
        OpDef("scf.yield", (0, None), _none, effect="control", description="region results"),
        # Loop-level forms for targets without tile values (see ssa.lower_tiles_to_loops).
        OpDef(
            "scf.parallel",
            (1, 1),
            _parallel,
            regions=1,
            # shape: the tile whose elements the iterations are (row-major), for a target that
            # runs them as a nest of its dims; the extent is then their product
            optional_attrs=("shape",),
            effect="control",
            description="independent iterations 0 .. n-1 (a target may spread them)",
        ),
        OpDef(
            "scf.grid",
            (1, 1),
            _indices,
            regions=1,
            effect="control",
            description="the programs 0 .. n-1 as a region (program ids as a loop)",
        ),
        OpDef(
            "mem.alloc",
            (0, 0),
            _alloc,
            attrs=("dtype", "size"),
            # shape: of the tile it holds, for a 2-D scope; operand_dtype: for a dot's
            # accumulator, the operands' element type (tensor-core fragments depend on it);
            # lanes: for a private array, how many consecutive positions a thread takes a round
            optional_attrs=("scope", "shape", "operand_dtype", "lanes"),
            effect="alloc",
            description="a 1-D array of the program's own",
        ),
        OpDef("mem.read", (2, 2), _read, effect="read", description="array element"),
        OpDef("mem.write", (3, 3), _write, effect="write", description="set an array element"),
        OpDef(
            "mem.owned_slots",
            (1, 1),
            _owned_slots,
            description="how many elements of an array of a per-thread layout (a tensor-core "
            "accumulator) this thread holds: its slots, which mem.read and mem.write index",
        ),
        OpDef(
            "mem.owned_position",
            (2, 2),
            _owned_position,
            description="(array, slot): the row-major position of the element this thread holds "
            "in the slot, or the array's size where the slot holds none",
        ),
        OpDef(
            "mem.dot",
            (3, 3),
            _array_dot,
            attrs=("m", "n", "k", "accumulate"),
            optional_attrs=("transpose_b",),
            effect="write",
            description="c = a @ b (c += a @ b where accumulate; b held [n, k] where transpose_b) "
            "on row-major arrays, by every thread of the program together",
        ),
        OpDef(
            "mem.reduce",
            (2, 2),
            _array_reduce,
            attrs=("kind", "shape"),
            effect="write",
            description="an array's [outer, length, inner] combined along length into another, "
            "by every thread of the program together",
        ),
        OpDef(
            "mem.copy",
            (2, 2),
            _copy,
            attrs=("shape",),
            effect="write",
            description="a whole array into another (the tile of `shape` it holds), by all threads",
        ),
        OpDef(
            "mem.copy_box_in",
            (5, None),
            _box_in,
            attrs=("shape",),
            effect="write",
            description="(buffer, bases.., sizes.., strides.., array): the buffer's box of "
            "`shape` at the bases into the array, zero where a dim is out of 0 .. size-1, by "
            "all threads",
        ),
        OpDef(
            "mem.copy_box_out",
            (5, None),
            _box_out,
            attrs=("shape",),
            effect="write",
            description="(array, buffer, bases.., sizes.., strides..): the array into the "
            "buffer's box of `shape` at the bases, where every dim is in 0 .. size-1, by all "
            "threads",
        ),
        OpDef(
            "mem.load_lanes",
            (3, 3),
            _load_lanes,
            attrs=("lanes",),
            effect="write",
            description="(buffer, offset, array): buffer[offset .. offset+lanes-1] into the "
            "array, one vector read of one thread; the offset is a multiple of lanes and the "
            "buffer aligned to lanes elements",
        ),
        OpDef(
            "mem.store_lanes",
            (3, 3),
            _store_lanes,
            attrs=("lanes",),
            effect="write",
            description="(array, buffer, offset): the array into buffer[offset .. "
            "offset+lanes-1], one vector write of one thread, aligned as mem.load_lanes",
        ),
        OpDef("index.thread_id", (0, 0), _index, description="this thread in its program"),
        OpDef("index.num_threads", (0, 0), _index, description="threads per program"),
        OpDef(
            "mem.barrier",
            (0, 0),
            _none,
            effect="write",
            description="threads of a program wait for each other; memory is visible after",
        ),
    ]
    defs += [
        OpDef(f"reduce.{n}", (1, 1), _reduce, attrs=("axis",), description=f"{n} along axis")
        for n in REDUCE_KINDS
    ]
    return defs


OPS: dict[str, OpDef] = {d.name: d for d in _defs()}


def lookup(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(
            f"{name!r} is not a registered op; compose registered ops or add a generic one "
            "to compiler/ir/registry.py"
        ) from None
