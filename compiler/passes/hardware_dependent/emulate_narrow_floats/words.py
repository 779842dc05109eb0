"""u32 words of an f32's bits, as the codecs (`fp8_codec.py`, `bf16_codec.py`) build them."""

from __future__ import annotations

from compiler.ir import Builder, Value
from compiler.ir.types import with_dtype
from compiler.passes.helpers.constants import make_constant

F32_MANTISSA, F32_BIAS = 23, 127
F32_INFINITY, F32_NAN = 0x7F800000, 0x7FC00000


class Words:
    """u32 arithmetic on values of one shape, constants made to match."""

    def __init__(self, builder: Builder, like: Value):
        self.b, self.like = builder, like

    def const(self, value: int | float, dtype: str = "u32") -> Value:
        return make_constant(self.b, value, with_dtype(self.like.type, dtype))

    def op(self, name: str, a: Value, b: Value | int) -> Value:
        return self.b.value(name, a, b if isinstance(b, Value) else self.const(b))

    def cmp(self, a: Value, b: int, pred: str) -> Value:
        return self.b.value("arith.cmp", a, self.const(b), pred=pred)

    def where(self, condition: Value, a: Value | int, b: Value | int) -> Value:
        a, b = (v if isinstance(v, Value) else self.const(v) for v in (a, b))
        return self.b.value("select.where", condition, a, b)

    def round_shift(self, word: Value, shift: Value | int) -> Value:
        """`word >> shift`, rounded to nearest even."""
        half = self.op("arith.sub", self.op("arith.shl", self.const(1), self.sub(shift, 1)), 1)
        odd = self.op("arith.and", self.op("arith.shr", word, shift), 1)
        return self.op(
            "arith.shr", self.op("arith.add", self.op("arith.add", word, half), odd), shift
        )

    def sub(self, a: Value | int, b: int) -> Value | int:
        return a - b if isinstance(a, int) else self.op("arith.sub", a, b)
