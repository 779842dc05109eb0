"""ssa.wrap_64_bit_arithmetic: 64-bit integer arithmetic made modular on a target that reads it as
never overflowing (capability `overflow_free_64`: the dtypes, of i64 and u64, it reads so; the
target records say why). An LLVM form that marks 64-bit add, sub and mul `nuw`/`nsw`, or C source
whose `int64_t` overflow its compiler takes as impossible, folded `(x * 3) // 3` to `x` where the
product wrapped. (Narrower integers the emitters compute in a wider type.)

An op whose exact result the value-range analysis proves within its dtype stays as it is (Philox's
products of zero-extended 32-bit words, offsets). Another is rebuilt on 32-bit halves held in u64,
where no partial sum, product or shift overflows, so no reading of overflow can change it:

    a + b + carry    low  = (a & M) + (b & M) + carry
                     high = (a >> 32) + (b >> 32) + (low >> 32)
                     ((high & M) << 32) | (low & M)
    a - b, -a        a + (b ^ ~0) + 1, 0 + (a ^ ~0) + 1
    a * b            p = (a & M) * (b & M)
                     cross = ((a & M) * (b >> 32) & M) + ((a >> 32) * (b & M) & M) + (p >> 32)
                     ((cross & M) << 32) | (p & M)
    a << s           (a & (~0 >> s)) << s

with M = 2^32 - 1. Signed i64 is computed on its u64 bits: two's complement wraps alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compiler.ir import Builder, Kernel, Operation, Value
from compiler.ir.interpreter import reinterpret
from compiler.passes.base import Pass, PassContext
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.ranges import ValueRanges
from compiler.passes.helpers.rewrite import builder_before, replace_op
from compiler.passes.registry import register

_LOW = 2**32 - 1
_ALL = 2**64 - 1


@register
@dataclass(frozen=True)
class Wrap64BitArithmetic(Pass):
    name = "ssa.wrap_64_bit_arithmetic"
    category = "backend-specific"
    description = "64-bit add, sub, mul, neg and shl on 32-bit halves where they may overflow"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        dtypes = _overflow_free(ctx.require_target(self.name))
        return any(_candidate(op, dtypes) for op in kernel.walk())

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        dtypes = _overflow_free(ctx.require_target(self.name))
        ranges = ValueRanges(kernel)
        changed = False
        # In program order, so an op reading a rebuilt result sees it as unknown, not proven.
        for op in list(kernel.walk()):
            if _candidate(op, dtypes) and ranges.may_overflow(op):
                replace_op(kernel, op, [_Halves(builder_before(op), op).result()])
                changed = True
        return changed


def _overflow_free(target) -> frozenset[str]:
    return frozenset(target.capability("overflow_free_64", ())) & {"i64", "u64"}


def _candidate(op: Operation, dtypes: frozenset[str]) -> bool:
    return op.name in _REBUILT and op.results[0].type.dtype in dtypes


class _Halves:
    """Builds one op's modular result from u64 ops that cannot overflow."""

    def __init__(self, b: Builder, op: Operation):
        self.b, self.op = b, op
        self.shape = op.results[0].type.shape
        self.constants: dict[int, Value] = {}

    def result(self) -> Value:
        dtype = self.op.results[0].type.dtype
        operands = [self.bits(v, "u64") for v in self.op.operands]
        return self.bits(_REBUILT[self.op.name](self, *operands), dtype)

    def bits(self, value: Value, dtype: str) -> Value:
        """`value`'s bits as `dtype`; a constant's as a constant (a target need not take a
        reinterpreted constant: TVM's LLVM form fails on one of zero)."""
        if value.type.dtype == dtype:
            return value
        constant = constant_value(value)
        if constant is not None:
            bits = reinterpret(constant, value.type.dtype, dtype).item()
            return self.b.constant(bits, dtype, value.type.shape)
        return self.b.value("arith.bitcast", value, dtype=dtype)

    def const(self, value: int) -> Value:
        if value not in self.constants:
            self.constants[value] = self.b.constant(value, "u64", self.shape)
        return self.constants[value]

    def apply(self, name: str, a: Value, b: Value | int) -> Value:
        return self.b.value(name, a, self.const(b) if isinstance(b, int) else b)

    def halves(self, value: Value) -> tuple[Value, Value]:
        return self.apply("arith.and", value, _LOW), self.apply("arith.shr", value, 32)

    def join(self, high: Value, low: Value) -> Value:
        """`high`'s low 32 bits above `low`'s."""
        high = self.apply("arith.shl", self.apply("arith.and", high, _LOW), 32)
        return self.apply("arith.or", high, self.apply("arith.and", low, _LOW))

    def add(self, a: Value, b: Value, carry: int = 0) -> Value:
        (a_low, a_high), (b_low, b_high) = self.halves(a), self.halves(b)
        low = self.apply("arith.add", a_low, b_low)
        if carry:
            low = self.apply("arith.add", low, carry)
        carried = self.apply("arith.shr", low, 32)
        high = self.apply("arith.add", self.apply("arith.add", a_high, b_high), carried)
        return self.join(high, low)

    def sub(self, a: Value, b: Value) -> Value:
        return self.add(a, self.apply("arith.xor", b, _ALL), carry=1)

    def neg(self, a: Value) -> Value:
        return self.add(self.const(0), self.apply("arith.xor", a, _ALL), carry=1)

    def mul(self, a: Value, b: Value) -> Value:
        (a_low, a_high), (b_low, b_high) = self.halves(a), self.halves(b)
        product = self.apply("arith.mul", a_low, b_low)
        cross = [self.apply("arith.mul", x, y) for x, y in ((a_low, b_high), (a_high, b_low))]
        middle = self.apply("arith.shr", product, 32)
        for term in cross:
            middle = self.apply("arith.add", middle, self.apply("arith.and", term, _LOW))
        return self.join(middle, product)

    def shl(self, a: Value, shift: Value) -> Value:
        kept = self.apply("arith.shr", self.const(_ALL), shift)
        return self.apply("arith.shl", self.apply("arith.and", a, kept), shift)


_REBUILT: dict[str, Callable[..., Value]] = {
    "arith.add": _Halves.add,
    "arith.sub": _Halves.sub,
    "arith.neg": _Halves.neg,
    "arith.mul": _Halves.mul,
    "arith.shl": _Halves.shl,
}
