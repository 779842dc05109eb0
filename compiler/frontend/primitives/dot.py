"""`ntl.dot` with Triton's keywords: `acc` is added to the product, `out_dtype` is the
accumulator's dtype; `input_precision`/`allow_tf32` only permit less precise products, so the
exact product this compiler computes satisfies every setting."""

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
    product = arith.b.value("linalg.dot", a, b, dtype=dtype)
    return product if acc is None else arith.binary("arith.add", acc, product)


PRIMITIVES: dict[str, Callable] = {"dot": dot}
