"""Widening: an op whose operand dtype the target does not accept (`target.accepts(op, dtype)`)
computes in the narrowest wider float dtype it does accept, with casts in and out.

    %r = math.exp(%x) : f16   ->   %w = arith.cast(%x) {dtype = "f32"} : f32
                                   %e = math.exp(%w) : f32
                                   %r = arith.cast(%e) {dtype = "f16"} : f16
"""

from __future__ import annotations

from typing import Any

from compiler.ir import Kernel, Operation, lookup
from compiler.ir.types import BufferType
from compiler.passes.base import PassError
from compiler.passes.helpers.rewrite import builder_before, replace_op

WIDER = {"f16": ("f32", "f64"), "bf16": ("f32", "f64"), "f32": ("f64",)}


def unaccepted_dtype(target: Any, op: Operation) -> str | None:
    """The first operand dtype of `op` the target does not take, else None (buffers aside)."""
    for value in op.operands:
        if not isinstance(value.type, BufferType) and not target.accepts(op.name, value.type.dtype):
            return value.type.dtype
    return None


def widen(kernel: Kernel, op: Operation, target: Any, pass_name: str) -> None:
    dtype = unaccepted_dtype(target, op)
    wide = next((w for w in WIDER.get(dtype, ()) if target.accepts(op.name, w)), None)
    where = f"{pass_name}: target {target.name} does not take {op.name} on {dtype}"
    if lookup(op.name).effect != "pure":
        raise PassError(f"{where}, and only pure ops are widened; let the target take {dtype}")
    if wide is None:
        raise PassError(f"{where} nor on a wider float dtype; let the target take one of them")
    compute_in(kernel, op, {dtype}, wide)


def compute_in(kernel: Kernel, op: Operation, narrow: set[str], wide: str) -> None:
    """`op` on its operands of the `narrow` dtypes cast to `wide`; results cast back to theirs."""
    builder = builder_before(op)
    operands = [
        builder.value("arith.cast", v, dtype=wide)
        if v.type.dtype in narrow and not isinstance(v.type, BufferType)
        else v
        for v in op.operands
    ]
    wide_op = builder.create(op.name, operands, op.attrs)
    results = [
        new if new.type == old.type else builder.value("arith.cast", new, dtype=old.type.dtype)
        for new, old in zip(wide_op.results, op.results, strict=True)
    ]
    replace_op(kernel, op, results)
