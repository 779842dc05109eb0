"""Small readers of libcst expressions that several rules share."""

from __future__ import annotations

import re

import libcst as cst

STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_CASE_METHODS = {"lower", "upper", "casefold", "title", "capitalize", "swapcase", "strip", "decode"}
_NAME_LIKE = re.compile(r"[\w.\-:/*^$]+")


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a string expression made only of literals (`"a" "b"`, `"mat" + "mul"`)."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value.decode("latin-1") if isinstance(value, bytes) else value
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_value(node.left), string_value(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.FormattedString) and not _has_expressions(node):
        return string_text(node)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = string_value(node.left), string_value(node.right)
        return None if left is None or right is None else left + right
    if is_call_to(node, "join") and isinstance(node.func, cst.Attribute):
        separator = string_value(node.func.value)
        parts = string_elements(node.args[0].value) if len(node.args) == 1 else None
        if separator is not None and parts is not None:
            return separator.join(parts)
    if is_call_to(node, *_CASE_METHODS) and isinstance(node.func, cst.Attribute) and not node.args:
        base = string_value(node.func.value)  # bytes literals already read as text
        method = node.func.attr.value
        return None if base is None else base if method == "decode" else getattr(base, method)()
    if _is_reversal(node):
        base = string_value(node.value)
        return None if base is None else base[::-1]
    return None


def string_text(node: cst.BaseExpression) -> str | None:
    """Literal text of a string expression; f-string placeholders read as `{}`."""
    if isinstance(node, cst.FormattedString):
        return "".join(
            part.value if isinstance(part, cst.FormattedStringText) else "{}" for part in node.parts
        )
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_text(node.left), string_text(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = string_text(node.left), string_text(node.right)
        if left is None and right is None:
            return None
        return (left or "{}") + (right or "{}")
    return string_value(node)


def string_elements(node: cst.BaseExpression) -> list[str] | None:
    """The strings of a literal tuple, list or set (or set()/frozenset()/tuple() of one)."""
    if isinstance(node, cst.Call) and callee_name(node) in ("set", "frozenset", "tuple", "list"):
        return string_elements(node.args[0].value) if len(node.args) == 1 else None
    if not isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return None
    values = [
        string_value(element.value) for element in node.elements if isinstance(element, cst.Element)
    ]
    if not values or any(value is None for value in values):
        return None
    return values


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
    """A string assembled at run time: `"emit_" + op`, `f"emit_{op}"`, `"{}".format(op)`."""
    if isinstance(node, cst.FormattedString):
        return _has_expressions(node)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Modulo)):
        return string_value(node) is None and (
            isinstance(node.left, STRING_NODES) or isinstance(node.right, STRING_NODES)
        )
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


def _is_reversal(node: cst.BaseExpression) -> bool:
    """`text[::-1]`"""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return False
    part = node.slice[0].slice
    return (
        isinstance(part, cst.Slice)
        and part.lower is None
        and part.upper is None
        and isinstance(part.step, cst.UnaryOperation)
        and isinstance(part.step.operator, cst.Minus)
        and getattr(part.step.expression, "value", None) == "1"
    )


def _has_expressions(node: cst.FormattedString) -> bool:
    return any(isinstance(part, cst.FormattedStringExpression) for part in node.parts)
