"""NineToothed/Triton dtype names <-> IR dtypes, and the promotion rule for mixed arithmetic."""

from __future__ import annotations

import torch

from compiler.ir.types import is_float

# NineToothed spells dtypes "fp32", "i32", ...; the IR spells them "f32", "i32", ...
DSL_TO_IR = {
    "fp16": "f16",
    "bf16": "bf16",
    "fp32": "f32",
    "fp64": "f64",
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "u8": "u8",
    "u16": "u16",
    "u32": "u32",
    "u64": "u64",
    "fp8e4nv": "f8e4m3fn",  # Triton's names: NineToothed has no fp8 dtypes of its own
    "fp8e5": "f8e5m2",
}

TORCH_TO_IR = {
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float32: "f32",
    torch.float64: "f64",
    torch.int8: "i8",
    torch.int16: "i16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.uint8: "u8",
    torch.uint16: "u16",
    torch.uint32: "u32",
    torch.uint64: "u64",
    torch.bool: "i1",
    torch.float8_e4m3fn: "f8e4m3fn",
    torch.float8_e5m2: "f8e5m2",
}

_INT_RANK = {"i1": 0, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 3, "u32": 3, "index": 4}
_INT_RANK.update({"i64": 5, "u64": 5})


# The dtype names of `ninetoothed.language` objects (`str(ntl.int32)`, Triton's language) where
# they differ from NineToothed's.
LANGUAGE_TO_IR = {
    "int1": "i1",
    **{f"int{b}": f"i{b}" for b in (8, 16, 32, 64)},
    **{f"uint{b}": f"u{b}" for b in (8, 16, 32, 64)},
}


def ir_dtype(dtype: object) -> str:
    """Accepts NineToothed's spelling ("fp32"), the IR's ("f32"), a Triton dtype (`tl.int32`) or a
    torch dtype (`torch.float16`), as libraries pass any of them."""
    if isinstance(dtype, torch.dtype) and dtype in TORCH_TO_IR:
        return TORCH_TO_IR[dtype]
    name = str(dtype)
    if name in DSL_TO_IR:
        return DSL_TO_IR[name]
    if name in LANGUAGE_TO_IR:
        return LANGUAGE_TO_IR[name]
    if name in DSL_TO_IR.values() or name in ("i1", "index"):
        return name
    raise ValueError(f"unknown dtype {dtype!r}; use one of {', '.join(DSL_TO_IR)}")


def promote(a: str, b: str, div_or_mod: bool = False) -> str:
    """The dtype two operands meet at, by Triton's rules (`computation_type_impl`): f64 wins;
    division and remainder of floats compute in f32 at least; then f32, f16 (also over bf16), bf16
    only with bf16 (else f32); an fp8 with itself stays, two different ones meet at f16; integers
    by C's usual conversions."""
    floats = {d for d in (a, b) if is_float(d)}
    if "f64" in floats:
        return "f64"
    if floats and div_or_mod:
        return "f32"
    for dtype in ("f32", "f16"):
        if dtype in floats:
            return dtype
    if "bf16" in floats:
        return "bf16" if a == b else "f32"
    if len(floats) == 2:  # two different fp8 formats
        return "f16"
    if floats:  # an fp8 with an integer: the fp8, as Triton takes a Python int with it
        return floats.pop()
    if a == b:
        return a
    return _integer_promote(a, b)


def _integer_promote(a: str, b: str) -> str:
    """C's usual arithmetic conversions: the wider type; at equal width the unsigned one."""
    rank_a, rank_b = _INT_RANK[a], _INT_RANK[b]
    if rank_a != rank_b:
        return a if rank_a > rank_b else b
    return a if a.startswith("u") else b
