"""Spellings most languages share: infix arithmetic, comparison operators and the names of the
math functions. A target's table starts from these and adds or overrides what its language
spells otherwise (Triton's `//`, TIR's `T.truncdiv`, ...)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from compiler.backends.target import OpText, Spelling, spelled
from compiler.ir.types import FLOAT_DTYPES, INT_DTYPES

INFIX = {
    "arith.add": "+",
    "arith.sub": "-",
    "arith.mul": "*",
    "arith.div": "/",
    "arith.and": "&",
    "arith.or": "|",
    "arith.xor": "^",
    "arith.shl": "<<",
    "arith.shr": ">>",
}
MATH = [f"math.{n}" for n in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs", "sin", "cos")]
MATH += ["math.floor", "math.ceil", "math.erf"]
# Math functions C and TIR have but Triton's language does not (there they are decomposed).
LIBM_MATH = ["math.tanh", "math.atan"]
PREDICATES = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
INTEGERS = frozenset(INT_DTYPES) | {"index"}
MATH_DTYPES = frozenset({"f32", "f64"})
# The operand dtypes the languages here take: math functions in f32/f64 only (none has f16/bf16
# math everywhere, so `ssa.lower_backend_intrinsics` widens them), true division on floats,
# truncating division and remainder on integers.
OPERAND_DTYPES = {
    **dict.fromkeys((name for name in MATH + LIBM_MATH if name != "math.abs"), MATH_DTYPES),
    "math.isnan": MATH_DTYPES,
    "arith.div": frozenset(FLOAT_DTYPES),
    "arith.idiv": INTEGERS,
    "arith.irem": INTEGERS,
    "math.fmod": MATH_DTYPES,
    "math.fma": MATH_DTYPES,
}


def infix(table: dict[str, str]) -> dict[str, str]:
    """Format spellings `a <symbol> b` for each op of `table`."""
    return {name: f"{{0}} {symbol} {{1}}" for name, symbol in table.items()}


# Integer arithmetic that can pass its type's range. The IR's wraps, two's complement, as Triton's
# LLVM ops without `nsw` do; C++ and TIR take signed overflow as impossible and fold on it
# (`-x > 0` becomes `x < 0`, wrong for INT_MIN), so `wrapping` computes them in a type where the
# result is exact or wraps by definition, and converts it back (modular in C++ and TIR alike).
WRAPPING = ("arith.add", "arith.sub", "arith.mul", "arith.neg", "arith.shl")
# Spells the conversion of a value (its text) to an IR dtype.
Convert = Callable[[str, str], str]


def wrapping(
    spelling: Spelling, dtypes: Mapping[str, str], domain: Mapping[str, str], convert: Convert
) -> Callable[[OpText], str]:
    """`spelling` of a WRAPPING op, on operands of a dtype in `domain` computed in the dtype it
    maps to and converted back with `convert`; `dtypes` spells IR dtypes in the language."""

    def spell(op: OpText) -> str:
        dtype = op.operand_dtypes[0] if op.operand_dtypes else None
        wide = domain.get(dtype)
        if wide is None:
            return spelled(spelling, op)
        widened = dataclasses.replace(
            op,
            args=tuple(convert(a, wide) for a in op.args),
            fields={**op.fields, "result_dtype": dtypes[wide]},
            operand_dtypes=(wide,) * len(op.args),
        )
        return convert(spell(widened), dtype)

    return spell


def atomic(update: str, masked: str) -> Callable[[OpText], str]:
    """A `mem.atomic` spelling that gives the old value: `update` (fields buffer, offset, value,
    kind; a compare-and-swap's value is the new one and the one to compare with), and where a
    mask is given `masked` (fields cond, update, dtype), which reads nothing where the mask is
    false."""

    def spell(op: OpText) -> str:
        buffer, offset, value, *mask = op.args
        if op.attrs["kind"] == "cas":  # in the mask's place, what it compares with
            value, mask = f"{value}, {mask[0]}", []
        text = update.format(buffer=buffer, offset=offset, value=value, kind=op.attrs["kind"])
        if not mask:
            return text
        return masked.format(cond=mask[0], update=text, dtype=op.fields["result_dtype"])

    return spell


def compare(op: OpText) -> str:
    return f"{op.args[0]} {PREDICATES[op.attrs['pred']]} {op.args[1]}"
