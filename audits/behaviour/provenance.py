"""Provenance: every word of the emitted source comes from the target record or from the IR.

A generic emitter spells each op from the target's tables and names values after the IR; a kernel
template, a helper snippet or a hand-written fast path brings words of its own. So the source's
identifiers are split into parts (at `_` and digits: `x_extent` is `x` and `extent`, `v45` is `v`),
and each part must be one of:

- a part of a string the target record holds, followed into its spelling functions (their constants,
  the names they call, the module functions they reach and their constants);
- a part of a word of the kernel's IR, before or after the passes (value, argument and kernel
  names, op and attribute spellings);
- a part of a one-word string constant of the shared emitter's modules (`compiler/backends/*.py`):
  the names it generates (`mask`, `_extent`). Text with spaces there is not a name: a snippet of
  code kept in the emitter explains nothing.

The `ssa-sha256:` line is the trace audit's. A word whose parts are not all explained is a finding.
"""

from __future__ import annotations

import functools
import re
import sys
import types
from collections.abc import Iterator

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PART = re.compile(r"[A-Za-z]+")
_ONE_WORD = re.compile(r"\W*[A-Za-z_]\w*\W*")
_HASH_LINE = re.compile(r"^.*ssa-sha256:.*$", re.M)


def unexplained_words(artifact, target) -> list[str]:
    """The source's words with a part that neither the target record nor the IR explains."""
    allowed = _target_parts(target) | _emitter_parts()
    allowed |= _parts(artifact.ssa) | _parts(artifact.initial_ssa)
    source = _HASH_LINE.sub("", artifact.source)
    return sorted(
        word
        for word in set(_WORD.findall(source))
        if any(part not in allowed for part in _PART.findall(word))
    )


def _parts(text: str) -> set[str]:
    return set(_PART.findall(text))


def _target_parts(target) -> set[str]:
    return {part for text in _strings(target, set()) for part in _PART.findall(text)}


@functools.cache
def _emitter_parts() -> frozenset[str]:
    """Parts of the one-word string constants of the shared emitter's modules."""
    modules = [
        module
        for name, module in sys.modules.items()
        if name.startswith("compiler.backends.") and name.count(".") == 2 and module is not None
    ]
    return frozenset(
        part
        for module in modules
        for text in _strings(module.__dict__, set(), module_level=True)
        if _ONE_WORD.fullmatch(text)
        for part in _PART.findall(text)
    )


def _strings(value: object, seen: set[int], module_level: bool = False) -> Iterator[str]:
    """Every string reachable from `value`: containers, dataclass fields, functions' constants,
    the names they use and the module functions those name (recursively, each object once)."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, str):
        yield value
    elif isinstance(value, type):  # a class of the compiler: its methods and constants
        if value.__module__.startswith("compiler."):
            for name, member in list(vars(value).items()):
                if not name.startswith("__"):
                    yield from _strings(member, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _strings(item, seen)
    elif isinstance(value, dict) or (hasattr(value, "items") and hasattr(value, "keys")):
        for key, item in list(value.items()):
            if module_level and (isinstance(item, types.ModuleType) or str(key).startswith("__")):
                continue
            yield from _strings(key, seen)
            yield from _strings(item, seen)
    elif isinstance(value, functools.partial):
        yield from _strings((value.func, value.args, value.keywords), seen)
    elif isinstance(value, staticmethod | classmethod | property):
        yield from _strings(getattr(value, "__func__", None) or value.fget, seen)
    elif isinstance(value, types.FunctionType | types.MethodType):
        function = getattr(value, "__func__", value)
        yield from _code_strings(function.__code__, function.__globals__, seen)
        for cell in function.__closure__ or ():
            try:
                yield from _strings(cell.cell_contents, seen)
            except ValueError:  # an empty cell
                continue
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield from _strings(getattr(value, name), seen)


def _code_strings(code: types.CodeType, scope: dict, seen: set[int]) -> Iterator[str]:
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_strings(constant, scope, seen)
        else:
            yield from _strings(constant, seen)
    for name in code.co_names:
        yield name
        found = scope.get(name)
        if isinstance(found, types.FunctionType | functools.partial) or (
            isinstance(found, dict | tuple) and not isinstance(found, type)
        ):
            yield from _strings(found, seen)
