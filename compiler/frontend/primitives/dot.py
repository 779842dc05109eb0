"""`ntl.dot` with Triton's keywords: `acc` is added to the product, `out_dtype` is the
accumulator's dtype; `input_precision`/`allow_tf32` only permit less precise products. As in
Triton, a dot of f32 tiles permits TF32 products unless the program asks for more (`"ieee"`,
`allow_tf32=False`; `"tf32x3"` and the bf16 splits are kept exact): the dot records it
(`precision="tf32"`), so a target may run it on tensor cores. Every other dot is exact."""

from __future__ import annotations

from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.dtypes import ir_dtype
from compiler.ir.core import Value
from compiler.ir.types import is_float

PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6", None)


def dot(
    arith: Arith,
    input: object,
    other: object,
    acc: object = None,
    input_precision: str | None = None,
    allow_tf32: bool | None = None,
    max_num_imprecise_acc: int | None = None,
    out_dtype: str | None = None,
) -> Value:
    if input_precision not in PRECISIONS:
        raise CompileError(
            f"ntl.dot: input_precision={input_precision!r}; use one of "
            f"{', '.join(repr(p) for p in PRECISIONS)}"
        )
    a, b = arith.as_value(input), arith.as_value(other)
    default = "f32" if is_float(a.type.dtype) else "i32"
    dtype = ir_dtype(out_dtype) if out_dtype is not None else default
    attrs = {"dtype": dtype}
    if a.type.dtype == b.type.dtype == "f32" and _permits_tf32(input_precision, allow_tf32):
        attrs["precision"] = "tf32"
    product = arith.b.value("linalg.dot", a, b, **attrs)
    return product if acc is None else arith.binary("arith.add", acc, product)


def _permits_tf32(input_precision: str | None, allow_tf32: bool | None) -> bool:
    """Triton's rule: `allow_tf32` decides where no `input_precision` is given; neither means
    its default for f32, TF32."""
    if input_precision is None:
        return allow_tf32 is not False
    return input_precision == "tf32"


PRIMITIVES: dict[str, Callable] = {"dot": dot}
