"""IR types: scalars, tiles (a block of values held by one program), global buffers and arrays.

Types are frozen and hashable so passes (CSE above all) can key on them. A tile dimension is an int
or the name of a meta symbol (a block size) until `ssa.select_schedule` binds it.
"""

from __future__ import annotations

from dataclasses import dataclass

# Storage-only floats (torch's float8_e4m3fn and float8_e5m2): `ssa.emulate_narrow_floats` turns
# them into bytes and their math into f32 for a target that does not take them.
FP8_DTYPES = ("f8e4m3fn", "f8e5m2")
FLOAT_DTYPES = (*FP8_DTYPES, "f16", "bf16", "f32", "f64")
INT_DTYPES = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
DTYPES = ("i1", "index", *INT_DTYPES, *FLOAT_DTYPES)

Dim = int | str

# Bits per element; `index` has the target's width, so it has none here.
BIT_WIDTHS = {"i1": 1, **dict.fromkeys(FP8_DTYPES, 8), "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
BIT_WIDTHS.update({d: int(d[1:]) for d in INT_DTYPES})


def storage_width(dtype: str) -> int:
    """Bits per element in memory: a bool takes a byte."""
    return 8 if dtype == "i1" else BIT_WIDTHS[dtype]


def integer_bounds(dtype: str) -> tuple[int, int]:
    """The least and the greatest number of an integer dtype of fixed width (not `index`)."""
    bits = BIT_WIDTHS[dtype]
    if dtype.startswith("u"):
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_integer(dtype: str) -> bool:
    return dtype in INT_DTYPES or dtype == "index"


@dataclass(frozen=True)
class ScalarType:
    dtype: str

    def __str__(self) -> str:
        return self.dtype

    @property
    def shape(self) -> tuple[Dim, ...]:
        return ()


@dataclass(frozen=True)
class TileType:
    dtype: str
    shape: tuple[Dim, ...]

    def __str__(self) -> str:
        return f"tile<{self.dtype}[{', '.join(str(d) for d in self.shape)}]>"


@dataclass(frozen=True)
class BufferType:
    """A tensor in global memory; its sizes and strides travel as separate `index` arguments."""

    dtype: str

    def __str__(self) -> str:
        return f"buffer<{self.dtype}>"

    @property
    def shape(self) -> tuple[Dim, ...]:
        return ()


@dataclass(frozen=True)
class ArrayType:
    """A program's own 1-D array (local or shared memory), made by `mem.alloc` when a target has no
    tile values: tiles live in arrays and are read and written one element at a time."""

    dtype: str
    size: int

    def __str__(self) -> str:
        return f"array<{self.dtype}[{self.size}]>"

    @property
    def shape(self) -> tuple[Dim, ...]:
        return ()


Type = ScalarType | TileType | BufferType | ArrayType


# `value_type` hands out one object per (dtype, shape), as MLIR uniques its types: passes compare,
# hash and print the same few types over and over, and `is` then settles most comparisons (the
# printer and the copier cache texts and copies per object). Only dtypes and dims of exactly `str`
# and `int` are uniqued, so a look-alike (True for 1, 64.0 for 64) never receives a shared type.
_UNIQUED: dict[tuple[str, tuple[Dim, ...]], ScalarType | TileType] = {}


def value_type(dtype: str, shape: tuple[Dim, ...]) -> ScalarType | TileType:
    """The scalar type when `shape` is empty, else the tile type."""
    shape = tuple(shape)
    if not shape and type(dtype) is str:  # a scalar, the commonest: its shape needs no check
        type_ = _UNIQUED.get((dtype, ()))
        if type_ is not None:
            return type_
    uniqued = type(dtype) is str and all(type(d) is int or type(d) is str for d in shape)
    if uniqued:
        type_ = _UNIQUED.get((dtype, shape))
        if type_ is not None:
            return type_
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    type_ = TileType(dtype, shape) if shape else ScalarType(dtype)
    if uniqued:
        _UNIQUED[dtype, shape] = type_
    return type_


def with_dtype(type_: ScalarType | TileType, dtype: str) -> ScalarType | TileType:
    return value_type(dtype, type_.shape)
