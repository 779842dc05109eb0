"""What name an expression stands for, in every form dispatch code writes it.

`"matmul"`, `"mat" + "mul"`, `f"{prefix}_matmul"`, `("bmm", "mm")`, `frozenset({...})`,
`KIND` (a constant, here or imported), `Kinds.MATMUL` (an enum member or class constant) and
`MatmulOp` (a class) all stand for the operator `matmul`.
"""

from __future__ import annotations

import libcst as cst

from audits.constants import ConstantIndex
from audits.syntax import dotted_name, is_name_like, last_name, string_elements, string_text
from audits.vocabulary import Vocabulary


def denoted_word(
    node: cst.BaseExpression,
    vocabulary: Vocabulary,
    constants: ConstantIndex,
    any_identifier: bool = False,
) -> tuple[str, str] | None:
    """(subject, word) when `node` stands for a name in `vocabulary`.

    Identifiers count when they look like constants or classes (`MATMUL`, `MatmulOp`); with
    `any_identifier`, every identifier counts (`target.is_cuda` for backend names).
    """
    text = string_text(node)
    if text is not None:
        return _in_text(text, vocabulary)
    elements = string_elements(node)
    if elements is not None:
        return _first(_in_text(element, vocabulary) for element in elements)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return _first(
            denoted_word(element.value, vocabulary, constants, any_identifier)
            for element in node.elements
        )
    name = dotted_name(node)
    if name is None:
        return None
    for value in constants.strings(node):
        found = _in_text(value, vocabulary)
        if found:
            return f"{name} = {found[0]}", found[1]
    identifier = last_name(node)
    if any_identifier or _constant_or_class(identifier):
        word = vocabulary.find(identifier)
        if word:
            return name, word
    return None


def _in_text(text: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    bare = text.replace("{}", " ")
    if not is_name_like(bare.replace(" ", "_")):
        return None
    word = vocabulary.find(bare)
    return (repr(text), word) if word else None


def _constant_or_class(identifier: str) -> bool:
    stripped = identifier.lstrip("_")
    return bool(stripped) and (stripped.isupper() or stripped[0].isupper())


def _first(candidates):
    return next((candidate for candidate in candidates if candidate), None)
