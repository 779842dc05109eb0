"""Typed arithmetic for the frontend: Python scalars adopt their partner's dtype (Triton's weak
typing), mixed dtypes meet at `promote`, shapes broadcast NumPy-style, and each result is one
registered IR op."""

from __future__ import annotations

import math
import operator

from compiler.errors import CompileError
from compiler.frontend.dtypes import promote
from compiler.ir.builder import Builder, broadcast_shape
from compiler.ir.core import Value
from compiler.ir.type_rules import COMPARISONS
from compiler.ir.types import BIT_WIDTHS, FLOAT_DTYPES, integer_bounds, is_float, is_integer

Scalar = bool | int | float
Operand = Value | Scalar


def _true_divide(a: Scalar, b: Scalar) -> float:
    """IEEE division, as the kernel divides at run time: x / 0.0 is +-inf (nan for 0 or nan)."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


_PYTHON_BINARY = {
    "arith.add": operator.add,
    "arith.sub": operator.sub,
    "arith.mul": operator.mul,
    "arith.div": _true_divide,
    "arith.idiv": operator.floordiv,
    "arith.irem": operator.mod,
    "arith.max": max,
    "arith.min": min,
    "arith.and": operator.and_,
    "arith.or": operator.or_,
    "arith.xor": operator.xor,
    "arith.shl": operator.lshift,
    "arith.shr": operator.rshift,
}


def python_dtype(value: Scalar) -> str:
    """Triton's types for Python literals: bool i1, float f32, an int the first of i32, u32, i64
    and u64 that holds it."""
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, float):
        return "f32"
    if -(2**31) <= value < 2**31:
        return "i32"
    if 0 <= value < 2**32:
        return "u32"
    return "i64" if -(2**63) <= value < 2**63 else "u64"


def _fits(value: Scalar, dtype: str) -> bool:
    """Whether a Python number can take `dtype` (else, beside a float, it keeps its own type and
    promotion decides; beside an integer Triton refuses it: `_out_of_range`)."""
    if dtype == "i1":  # an int with bools computes in i32, as Triton's (`mask + 5` is 6 or 5)
        return isinstance(value, bool)
    if isinstance(value, float) or is_float(dtype) or dtype not in BIT_WIDTHS:
        return True  # a float tile takes any number as its own type, as Triton's
    low, high = integer_bounds(dtype)
    return low <= value <= high


def saturated(value: float, dtype: str) -> int:
    """A float number as a value of the integer `dtype`, as a GPU converts it (PTX's `cvt.rzi`):
    toward zero, clamped to the type's range (infinities included); NaN is 0."""
    if math.isnan(value):
        return 0
    low, high = integer_bounds(dtype)
    return low if value <= low else high if value >= high else math.trunc(value)


_SIGNED = frozenset({"i8", "i16", "i32", "i64"})

# Triton computes bools as 1-bit integers: their sums and differences wrap (True + True is
# False), as exclusive or does, and their product is their and.
_ONE_BIT = {"arith.add": "arith.xor", "arith.sub": "arith.xor", "arith.mul": "arith.and"}

# The float dtypes `promote` turns into f32 for division and remainder, even with themselves.
_DIVIDED_IN_F32 = frozenset(d for d in FLOAT_DTYPES if d not in ("f32", "f64"))


class Arith:
    def __init__(self, builder: Builder):
        self.b = builder

    def constant(self, value: Scalar, dtype: str | None = None, shape: tuple = ()) -> Value:
        dtype = dtype or python_dtype(value)
        value = float(value) if is_float(dtype) else int(value)
        return self.b.constant(value, dtype, shape)

    def as_value(self, x: Operand, like: Value | None = None) -> Value:
        if isinstance(x, Value):
            return x
        if like is not None and (is_float(like.type.dtype) or not isinstance(x, float)):
            dtype = like.type.dtype
            if _fits(x, dtype):
                return self.constant(x, dtype)
            if is_integer(dtype):
                raise _out_of_range(x, dtype)
        return self.constant(x)

    def cast(self, x: Value, dtype: str) -> Value:
        if x.type.dtype == dtype:
            return x
        return self.b.value("arith.cast", x, dtype=dtype)

    def unify(self, *xs: Operand, div_or_mod: bool = False) -> list[Value]:
        """Constants for Python scalars, one promoted dtype (Triton's, where division and
        remainder of halves compute in f32), one broadcast shape."""
        if all(type(x) is Value for x in xs):
            values = list(xs)
        else:
            anchor = next((x for x in xs if isinstance(x, Value)), None)
            values = [self.as_value(x, anchor) for x in xs]
        first = values[0].type
        if all(v.type is first or v.type == first for v in values):
            # the common case, one type: it promotes to itself but where a division of narrow
            # floats computes in f32
            if not (div_or_mod and first.dtype in _DIVIDED_IN_F32):
                return values
        dtype = first.dtype
        for v in values[1:]:
            dtype = promote(dtype, v.type.dtype, div_or_mod)
        shape = broadcast_shape(*(v.type for v in values))
        return [self.b.broadcast_to(self.cast(v, dtype), shape) for v in values]

    def binary(self, op_name: str, a: Operand, b: Operand) -> Operand:
        if not isinstance(a, Value) and not isinstance(b, Value):
            return _PYTHON_BINARY[op_name](a, b)
        div_or_mod = op_name in ("arith.div", "arith.idiv", "arith.irem")
        if div_or_mod:
            _same_signedness(a, b)
        left, right = self.unify(a, b, div_or_mod=div_or_mod)
        if left.type.dtype == "i1":
            op_name = _ONE_BIT.get(op_name, op_name)
        if op_name in ("arith.shl", "arith.shr"):
            return self.shift(op_name, left, b if not isinstance(b, Value) else right)
        if op_name in ("arith.idiv", "arith.irem") and left.type.dtype in _SIGNED:
            return self.divide(op_name, left, b if not isinstance(b, Value) else right)
        if op_name == "arith.div" and (is_integer(left.type.dtype) or left.type.dtype == "i1"):
            left, right = self.cast(left, "f32"), self.cast(right, "f32")
        if op_name == "arith.irem" and is_float(left.type.dtype):  # Triton's float %: C's fmod
            op_name = "math.fmod"
        if op_name == "arith.idiv" and is_float(left.type.dtype):
            raise CompileError(
                f"`//` of {left.type.dtype} values: Triton has no floor division of floats; "
                "write ntl.floor(x / y), or cast to an integer type first"
            )
        return self.b.value(op_name, left, right)

    def shift(self, op_name: str, x: Value, count: Operand) -> Value:
        """A shift defined for every count, as the GPU's (PTX clamps the count to the width) and
        Triton's interpreter give it: past the width or below 0, a left shift gives 0 and a right
        shift the sign (0 for unsigned)."""
        width, unsigned = BIT_WIDTHS.get(x.type.dtype, 64), x.type.dtype.startswith("u")
        if isinstance(count, Value):
            allowed = self.compare("lt", count, width)
            if not unsigned:
                allowed = self.binary("arith.and", allowed, self.compare("ge", count, 0))
        else:
            allowed = 0 <= count < width
        past = None
        if allowed is not True:
            signed_right = op_name == "arith.shr" and not unsigned
            past = self.shift(op_name, x, width - 1) if signed_right else 0
        return self._guarded(op_name, x, count, allowed, 0, past)

    def divide(self, op_name: str, x: Value, divisor: Operand) -> Value:
        """A signed `//` or `%` defined for the smallest number by -1, as Triton's interpreter
        and the GPU give it: the quotient wraps (to the smallest number), the remainder is 0 (a
        divisor of -1 negates, wrapping)."""
        if isinstance(divisor, Value):
            allowed = self.compare("ne", divisor, -1)
        else:
            allowed = divisor != -1
        by_minus_one = None
        if allowed is not True:
            by_minus_one = self.binary("arith.sub", 0, x) if op_name == "arith.idiv" else 0
        return self._guarded(op_name, x, divisor, allowed, 1, by_minus_one)

    def _guarded(
        self, op_name: str, x: Value, operand: Operand, allowed, safe: int, otherwise
    ) -> Value:
        """`op_name(x, operand)` where `allowed` holds (a truth known now, or a mask), `otherwise`
        (a value, or 0) elsewhere. C's and LLVM's op is undefined outside `allowed` (x86 raises
        SIGFPE for a division, ending the process), so it never sees such an operand: one known
        now is decided now, one computed at run time is replaced by `safe` there."""
        if allowed is True:
            return self.b.value(op_name, *self.unify(x, operand))
        if allowed is False:
            return otherwise if isinstance(otherwise, Value) else self.binary("arith.and", x, 0)
        done = self.b.value(op_name, x, self.where(allowed, operand, safe))
        return self.where(allowed, done, otherwise)

    def compare(self, pred: str, a: Operand, b: Operand) -> Operand:
        if not isinstance(a, Value) and not isinstance(b, Value):
            return COMPARISONS[pred](a, b)
        left, right = self.unify(a, b)
        return self.b.value("arith.cmp", left, right, pred=pred)

    def where(self, cond: Operand, a: Operand, b: Operand) -> Operand:
        if not isinstance(cond, Value):
            return a if cond else b
        anchor = a if isinstance(a, Value) else b if isinstance(b, Value) else None
        a_value, b_value = self.unify(self.as_value(a, anchor), self.as_value(b, anchor))
        shape = broadcast_shape(cond.type, a_value.type)
        cond = self.b.broadcast_to(self.cast(cond, "i1"), shape)
        a_value, b_value = (self.b.broadcast_to(v, shape) for v in (a_value, b_value))
        return self.b.value("select.where", cond, a_value, b_value)

    def unary(self, op_name: str, x: Operand) -> Value:
        x = self.as_value(x)
        if op_name.startswith("math.") and not is_float(x.type.dtype):
            x = self.cast(x, "f32")
        return self.b.value(op_name, x)


def _same_signedness(a: Operand, b: Operand) -> None:
    """Triton refuses `/`, `//` and `%` of integers of different signedness (bool counts as
    unsigned): the usual conversions would divide a negative number as a huge unsigned one. A
    Python number takes the other operand's type, so it is never the odd one out."""
    if not (isinstance(a, Value) and isinstance(b, Value)):
        return
    dtypes = (a.type.dtype, b.type.dtype)
    if all(is_integer(d) or d == "i1" for d in dtypes):
        unsigned = [d == "i1" or d.startswith("u") for d in dtypes]
        if unsigned[0] != unsigned[1]:
            raise CompileError(
                f"`/`, `//` or `%` of {dtypes[0]} and {dtypes[1]} values: Triton refuses integers "
                "of different signedness (a negative one would divide as a huge unsigned one); "
                "cast one of them with .to(...) first"
            )


def _out_of_range(value: int, dtype: str) -> CompileError:
    """A Python int beside an integer tile takes the tile's type (Triton's weak typing), which
    Triton refuses where the number does not fit: there is no wider type it could compute in."""
    if value < 0 and dtype.startswith("u"):
        return CompileError(
            f"{value} with {dtype} values: a Python number takes the tile's type, which has no "
            "negative numbers (Triton refuses it); cast the tile to a signed type with "
            ".to(...) first"
        )
    low, high = integer_bounds(dtype)
    return CompileError(
        f"{value} with {dtype} values: a Python number takes the tile's type, whose range is "
        f"[{low}, {high}] (Triton refuses it); cast the tile to a wider type with .to(...) first, "
        "e.g. x.to(ntl.int64)"
    )
