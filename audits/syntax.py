"""Small readers of libcst expressions that several rules share."""

from __future__ import annotations

import re

import libcst as cst

STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_NAME_LIKE = re.compile(r"[\w.\-:/*^$]+")


def is_name_like(text: str) -> bool:
    """Short text without spaces, as an op name, a key or a prefix test would be."""
    return len(text) <= 80 and bool(_NAME_LIKE.fullmatch(text)) and any(c.isalpha() for c in text)


def dotted_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def callee_name(call: cst.Call) -> str | None:
    return last_name(call.func)


def is_call_to(node: cst.BaseExpression, *names: str) -> bool:
    return isinstance(node, cst.Call) and callee_name(node) in names


def is_built_string(node: cst.BaseExpression) -> bool:
    """A string assembled from pieces: `"emit_" + op`, `f"emit_{op}"`, `"{}".format(op)`.
    Whether the pieces are constants is the evaluator's question."""
    if isinstance(node, cst.FormattedString):
        return _has_expressions(node)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Modulo)):
        return isinstance(node.left, STRING_NODES) or isinstance(node.right, STRING_NODES)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value in ("format", "join") and isinstance(
            node.func.value, STRING_NODES
        )
    return False


def call_arguments(call: cst.Call) -> list[cst.BaseExpression]:
    return [argument.value for argument in call.args]


def first_statement_string(body: cst.BaseSuite) -> cst.BaseExpression | None:
    """The docstring expression of a module, class or function body, if any."""
    statements = body.body if isinstance(body, (cst.IndentedBlock, cst.Module)) else ()
    if not statements or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    first = statements[0].body[0]
    if isinstance(first, cst.Expr) and isinstance(first.value, STRING_NODES):
        return first.value
    return None


def _has_expressions(node: cst.FormattedString) -> bool:
    return any(isinstance(part, cst.FormattedStringExpression) for part in node.parts)
