"""Spellings most languages share: infix arithmetic, comparison operators and the names of the
math functions. A target's table starts from these and adds or overrides what its language
spells otherwise (Triton's `//`, TIR's `T.truncdiv`, ...)."""

from __future__ import annotations

from compiler.backends.target import OpText

INFIX = {
    "arith.add": "+",
    "arith.sub": "-",
    "arith.mul": "*",
    "arith.div": "/",
    "arith.and": "&",
    "arith.or": "|",
    "arith.xor": "^",
}
MATH = [f"math.{n}" for n in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs", "sin", "cos")]
PREDICATES = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def infix(table: dict[str, str]) -> dict[str, str]:
    """Format spellings `a <symbol> b` for each op of `table`."""
    return {name: f"{{0}} {symbol} {{1}}" for name, symbol in table.items()}


def compare(op: OpText) -> str:
    return f"{op.args[0]} {PREDICATES[op.attrs['pred']]} {op.args[1]}"
