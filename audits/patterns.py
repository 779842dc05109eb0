"""Does a regular expression or a glob pick out an operator's name?

The audit compiles the pattern and tries it on each vocabulary entry, spelled as code spells it
(`layer_norm`, `layernorm`, `LayerNorm`, `LAYER_NORM`, alone or in `aten::{}` and `{}_kernel`). A
pattern names an operator when it matches the whole spelling and matches none of its controls: the
same text with the entry's letters, or either half of them, replaced. So `m.tm.l`, `soft(max|min)`
and `^attn_\\w+` name operators, while `^[A-Za-z_]\\w*$` (an identifier), `^log_\\w+` (a prefix that
any name may have) and `\\d+x\\d+` do not.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache

_CONTEXTS = ("{}", "aten::{}", "{}_kernel")
# Escapes, group names and inline flags: what is left holds the letters a pattern tests for.
_NOT_LETTERS = re.compile(r"\\.|\(\?P?<[^>]*>|\(\?P=\w+\)|\(\?[aiLmsux-]+[:)]")
_MAX_PATTERN_LENGTH = 2000
_FLAGS = {
    "I": re.I, "IGNORECASE": re.I, "X": re.X, "VERBOSE": re.X, "A": re.A, "ASCII": re.A,
    "S": re.S, "DOTALL": re.S, "M": re.M, "MULTILINE": re.M,
}  # fmt: skip


def flag_value(names: list[str]) -> int:
    """The `re` flags named in a flags argument (`re.I | re.VERBOSE`)."""
    value = 0
    for name in names:
        value |= _FLAGS.get(name, 0)
    return value


def glob_pattern(glob: str) -> str:
    return fnmatch.translate(glob)


@lru_cache(maxsize=4096)
def operator_named_by(pattern: str, flags: int, words: tuple[str, ...]) -> tuple[str, str] | None:
    """(the spelling it matched, the entry) when `pattern` picks out an operator's name."""
    if len(pattern) > _MAX_PATTERN_LENGTH or not _tests_letters(pattern):
        return None
    try:
        compiled = re.compile(pattern, flags)
    except (re.error, OverflowError, RecursionError):
        return None
    for word in words:
        for spelling in _spellings(word):
            for context in _CONTEXTS:
                if _names(compiled, context, spelling):
                    return context.format(spelling), word
    return None


def _tests_letters(pattern: str) -> bool:
    """A pattern without letters (`\\d+`, `^\\w+$`) cannot tell one name from another."""
    return any(c.isalpha() for c in _NOT_LETTERS.sub("", pattern))


def _names(compiled: re.Pattern, context: str, spelling: str) -> bool:
    start = context.index("{}")
    text = context.format(spelling)
    if not _covers(compiled, text, start, start + len(spelling)):
        return False
    half = len(spelling) // 2
    controls = (
        _scramble(spelling),
        _scramble(spelling[:half]) + spelling[half:],
        spelling[:half] + _scramble(spelling[half:]),
    )
    return not any(compiled.search(context.format(control)) for control in controls)


def _covers(compiled: re.Pattern, text: str, start: int, end: int) -> bool:
    """Does some match of the pattern span the operator's whole spelling in `text`?"""
    if compiled.fullmatch(text):
        return True
    found = compiled.search(text)
    return bool(found) and found.start() <= start and found.end() >= end


@lru_cache(maxsize=1024)
def _spellings(word: str) -> tuple[str, ...]:
    """`layer_norm` -> layer_norm, layernorm, LAYERNORM, Layernorm, LayerNorm, LAYER_NORM."""
    parts = word.split("_")
    compact = "".join(parts)
    spellings = (word, compact, compact.upper(), compact.capitalize())
    camel = "".join(part.capitalize() for part in parts)
    return tuple(dict.fromkeys((*spellings, camel, word.upper())))


def _scramble(text: str) -> str:
    """The same shape with other letters: `matmul` -> `qqqqqq`, `MatMul` -> `QqqQqq`."""
    return "".join(
        ("z" if c == "q" else "Z" if c == "Q" else "Q" if c.isupper() else "q")
        if c.isalpha()
        else c
        for c in text
    )
