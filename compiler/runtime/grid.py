"""Evaluates an artifact's grid expression without `eval`: names, ints, + - * // % and ( )."""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


class GridError(ValueError):
    pass


def integer_bindings(bindings: Mapping[str, object]) -> dict[str, int]:
    """The bindings a grid expression may read: the ints (a bool is a flag, not a size)."""
    return {k: v for k, v in bindings.items() if isinstance(v, int) and not isinstance(v, bool)}


def evaluate_grid(expression: str, env: Mapping[str, int]) -> int:
    """The number of programs: `expression` evaluated over `env` (argument and meta values)."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as error:
        raise GridError(f"grid {expression!r} is not an expression: {error.msg}") from None
    value = _evaluate(tree.body, expression, env)
    if value < 0:
        raise GridError(f"grid {expression!r} is negative ({value}) for {dict(env)}")
    return value


def _divides_by_zero(expression: str, env: Mapping[str, int]) -> str:
    message = f"grid {expression!r} divides by zero for {dict(env)}"
    empty = [name for name, value in env.items() if value == 0]
    if not empty:
        return message
    # A tile as large as a dimension (-1) of an empty one has no size to count tiles of.
    return (
        f"{message}: {', '.join(empty)} = 0, and the arrangement counts tiles by it; give the "
        "tensor at least one element there (or skip the call for empty tensors)"
    )


def _evaluate(node: ast.AST, expression: str, env: Mapping[str, int]) -> int:
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left = _evaluate(node.left, expression, env)
        right = _evaluate(node.right, expression, env)
        if isinstance(node.op, ast.FloorDiv | ast.Mod) and right == 0:
            raise GridError(_divides_by_zero(expression, env))
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            known = ", ".join(sorted(env)) or "none"
            raise GridError(f"grid {expression!r}: {node.id!r} is not bound; bound: {known}")
        return env[node.id]
    raise GridError(
        f"grid {expression!r}: {ast.unparse(node)!r} is not allowed; use names, ints, "
        "+ - * // % and parentheses"
    )
