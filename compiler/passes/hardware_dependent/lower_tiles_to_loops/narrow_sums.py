"""A sum of a narrow float (f16, bf16) accumulates in f32, rounded to its dtype once.

The loop form adds a reduction's elements one after another, and in a narrow float each of the n
additions rounds: a sum of 4096 f16 ones stops at 2048, where an addend falls below half the
spacing of the sum. Triton's own reduction is a tree (log2(n) roundings) and its interpreter,
NineToothed's reference on the CPU, rounds once; so here the sum is taken in f32 and converted
back, on every loop target alike. A part of ssa.lower_tiles_to_loops, before its lowering.
"""

from __future__ import annotations

from compiler.ir import Kernel
from compiler.ir.types import BIT_WIDTHS, is_float
from compiler.passes.helpers.rewrite import builder_before, replace_op


def widen_narrow_sums(kernel: Kernel) -> bool:
    """Rewrite each `reduce.sum` of a float narrower than f32 as cast, f32 sum, cast back; whether
    there was one."""
    narrow = [
        op
        for op in kernel.walk()
        if op.name == "reduce.sum"
        and is_float(dtype := op.result.type.dtype)
        and BIT_WIDTHS[dtype] < 32
    ]
    for op in narrow:
        b = builder_before(op)
        wide = b.value("arith.cast", op.operands[0], dtype="f32")
        total = b.create("reduce.sum", [wide], dict(op.attrs)).result
        replace_op(kernel, op, [b.value("arith.cast", total, dtype=op.result.type.dtype)])
    return bool(narrow)
