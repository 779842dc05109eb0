"""What name an expression stands for, in every form dispatch code writes it.

`"matmul"`, `"mat" + "mul"`, `"%s%s" % ("mat", "mul")`, `"".join(reversed("lumtam"))`,
`f"{prefix}_matmul"`, `("bmm", "mm")`, `frozenset({...})`, `KIND` (a constant, here or imported,
or a local name bound to one), `Kinds.MATMUL` (an enum member or class constant), `_kind()` (a
helper that returns one) and `MatmulOp` (a class) all stand for the operator `matmul`: the
evaluator computes the value, and the vocabulary judges it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from audits.evaluation import Evaluator, Origin
from audits.syntax import dotted_name, is_name_like, last_name
from audits.vocabulary import Vocabulary

# A file path (`results/softmax.json`, `./kernels`) names a file, not an operator.
_FILE_PATH = re.compile(r"(?:^\.{0,2}/|/).*|.*/.*\.[A-Za-z0-9]{1,5}$")


@dataclass(frozen=True)
class Denotation:
    subject: str  # what the finding names: `'matmul'`, `KIND = 'matmul'`, `MatmulOp`
    word: str  # the vocabulary entry it matched
    origin: Origin | None = None  # where an evaluated value was built


def denoted_word(
    node: cst.BaseExpression,
    vocabulary: Vocabulary,
    evaluator: Evaluator,
    any_identifier: bool = False,
) -> Denotation | None:
    """What `node` stands for when that is a name in `vocabulary`.

    Identifiers count when they look like constants or classes (`MATMUL`, `MatmulOp`); with
    `any_identifier`, every identifier counts (`target.is_cuda` for backend names).
    """
    name = dotted_name(node)
    for value in evaluator.alternatives(node):
        found = name_in_value(value, vocabulary)
        if found:
            text, word = found
            subject = f"{name} = {text}" if name else text
            return Denotation(subject, word, evaluator.origin(node))
    template = None if name else evaluator.template(node)
    if template is not None:
        found = _in_text(template, vocabulary)
        return Denotation(*found) if found else None
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return _first(
            denoted_word(element.value, vocabulary, evaluator, any_identifier)
            for element in node.elements
        )
    if name is None:
        return None
    identifier = last_name(node)
    if any_identifier or _constant_or_class(identifier):
        word = vocabulary.find_identifier(identifier)
        if word:
            return Denotation(name, word)
    return None


def name_in_value(value, vocabulary: Vocabulary) -> tuple[str, str] | None:
    """(the text, the entry) when an evaluated value is, or holds, a name in `vocabulary`."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, str):
        return _in_text(value, vocabulary)
    if isinstance(value, (tuple, dict)):
        return _first(name_in_value(item, vocabulary) for item in value)
    return None


def _in_text(text: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    bare = text.replace("{}", " ")
    if not is_name_like(bare.replace(" ", "_")) or _FILE_PATH.fullmatch(bare):
        return None
    word = vocabulary.find(bare)
    return (repr(text), word) if word else None


def _constant_or_class(identifier: str) -> bool:
    stripped = identifier.lstrip("_")
    return bool(stripped) and (stripped.isupper() or stripped[0].isupper())


def _first(candidates):
    return next((candidate for candidate in candidates if candidate), None)
