"""Element types, spelled as NineToothed spells them ("fp16", "i32", ...).

A dtype is a `str` (so it is a dict key and compares with the spellings) that also answers the
questions Triton's dtype objects answer, because applications ask them at compile time
(`if x.dtype.is_floating(): ...`, `x.dtype == ntl.float16`).
"""

from __future__ import annotations


class DType(str):
    """One element type; `DType("fp16") is float16` (interned)."""

    _interned: dict[str, DType] = {}
    __slots__ = ()

    def __new__(cls, name: str) -> DType:
        if name not in cls._interned:
            cls._interned[name] = super().__new__(cls, name)
        return cls._interned[name]

    def is_floating(self) -> bool:
        return self.startswith(("fp", "bf"))

    def is_int(self) -> bool:
        return self.startswith(("i", "u"))

    def is_int_signed(self) -> bool:
        return self.startswith("i")

    def is_int_unsigned(self) -> bool:
        return self.startswith("u")

    def is_bool(self) -> bool:
        return self == "i1"

    def is_fp16(self) -> bool:
        return self == "fp16"

    def is_bf16(self) -> bool:
        return self == "bf16"

    def is_fp32(self) -> bool:
        return self == "fp32"

    def is_fp64(self) -> bool:
        return self == "fp64"

    def is_fp8(self) -> bool:
        return self.startswith("fp8")

    @property
    def primitive_bitwidth(self) -> int:
        return 8 if self.is_fp8() else int(self.lstrip("fpbiu"))

    @property
    def int_bitwidth(self) -> int:
        """An integer type's width (Triton's standard library asks it, e.g. in `cumprod`)."""
        if not self.is_int():
            raise AttributeError(f"{self!r} is not an integer type: it has no int_bitwidth")
        return self.primitive_bitwidth

    def __repr__(self) -> str:
        return f"ntl.{_NAMES.get(self, self)}"


int1 = DType("i1")
int8 = DType("i8")
int16 = DType("i16")
int32 = DType("i32")
int64 = DType("i64")

uint8 = DType("u8")
uint16 = DType("u16")
uint32 = DType("u32")
uint64 = DType("u64")

float16 = DType("fp16")
bfloat16 = DType("bf16")
float32 = DType("fp32")
float64 = DType("fp64")
float8e4nv = DType("fp8e4nv")
float8e5 = DType("fp8e5")

_NAMES = {value: name for name, value in dict(globals()).items() if isinstance(value, DType)}
