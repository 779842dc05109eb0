"""The pass registry and MLIR-style pipeline strings.

    ssa.canonicalize,ssa.select_schedule{BLOCK_SIZE_0=64},ssa.triton.optimize_schedule{num_warps=4}

Any module may register a pass with `@register`. A backend-specific pass `ssa.<backend>.<name>` that
is not registered yet is looked for by importing the package `compiler.backends.<backend>`.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import re
import typing

from compiler.passes.base import CATEGORIES, OPTION_TYPES, Pass, PassError

_PASSES: dict[str, type[Pass]] = {}

DEFAULT_PIPELINE = (
    "ssa.specialize_arguments",  # what the launch found (no-op without it)
    "ssa.canonicalize",
    "ssa.analyze_effects",
    "ssa.select_schedule",
    "ssa.{backend}.optimize_schedule",
    "ssa.decompose_linalg",
    "ssa.lower_memory_scopes",
    "ssa.emulate_narrow_floats",
    "ssa.legalize_argument_dtypes",
    "ssa.order_memory",  # barriers where threads race; none where a program is one thread
    "ssa.lower_backend_intrinsics",
    # Loop-level forms, each a no-op unless the target's capabilities ask for it.
    "ssa.lower_tiles_to_loops",
    "ssa.lower_parallel",
    "ssa.vectorize_accesses",
    "ssa.wrap_grid",
    "ssa.normalize_loops",
    "ssa.canonicalize",  # again: bound block sizes and lowered intrinsics fold, dedupe and hoist
    "ssa.wrap_64_bit_arithmetic",  # after the last fold, which would not keep its halves apart
    "ssa.pipeline_loops",  # on the final loop bodies
)

_ITEM = re.compile(r"\s*([A-Za-z_][\w.]*)\s*(?:\{(.*)\})?\s*", re.S)
_OPTION = re.compile(r'\s*(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,"]+)\s*,?')


def register(cls: type[Pass]) -> type[Pass]:
    """Class decorator: validate a pass class and make it reachable by its name."""
    if not (isinstance(cls, type) and issubclass(cls, Pass) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls!r} must be a dataclass subclass of compiler.passes.base.Pass")
    if not cls.__dataclass_params__.frozen:
        raise TypeError(f"{cls.__name__}: decorate with @dataclass(frozen=True)")
    name, category = getattr(cls, "name", None), getattr(cls, "category", None)
    if not (isinstance(name, str) and name.startswith("ssa.")):
        raise TypeError(f"{cls.__name__}: name must be a string 'ssa.<...>', got {name!r}")
    if category not in CATEGORIES:
        raise TypeError(f"{name}: category {category!r} is not one of {', '.join(CATEGORIES)}")
    description = getattr(cls, "description", "")
    if not description or "\n" in description:
        raise TypeError(f"{name}: needs a one-line description")
    hints = typing.get_type_hints(cls)
    if name in _PASSES and _PASSES[name] is not cls:
        raise TypeError(f"{name} is registered twice: {_PASSES[name].__qualname__}, {cls.__name__}")
    for f in dataclasses.fields(cls):
        if hints[f.name] not in OPTION_TYPES and "from_options" not in vars(cls):
            raise TypeError(f"{name}: option {f.name} must be int, float, bool or str")
    _PASSES[name] = cls
    return cls


def get(name: str) -> type[Pass]:
    if name not in _PASSES:
        _import_backend(name)
    if name not in _PASSES:
        raise PassError(f"unknown pass {name!r}; registered passes: {', '.join(sorted(_PASSES))}")
    return _PASSES[name]


def all_passes(category: str | None = None) -> list[type[Pass]]:
    """The registered pass classes, by name; only those of `category` when given."""
    if category is not None and category not in CATEGORIES:
        raise PassError(f"unknown category {category!r}; categories: {', '.join(CATEGORIES)}")
    return [
        cls for name, cls in sorted(_PASSES.items()) if category is None or cls.category == category
    ]


def parse_pipeline(text: str) -> list[Pass]:
    """Pass instances from a pipeline string `name{key=value ...},name,...`."""
    if not text.strip():
        return []
    passes = []
    for item in _split_items(text):
        match = _ITEM.fullmatch(item)
        if not match:
            raise PassError(f"cannot read pipeline item {item!r}; write name or name{{k=v ...}}")
        cls = get(match[1])
        passes.append(cls.from_options(_read_options(cls.name, match[2] or "")))
    return passes


def default_pipeline(backend: str) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", backend):
        raise PassError(f"backend name {backend!r} must be a lower-case identifier")
    return ",".join(name.format(backend=backend) for name in DEFAULT_PIPELINE)


def _split_items(text: str) -> list[str]:
    """Split at the commas outside braces and quoted strings."""
    items, depth, start, quoted, escaped = [], 0, 0, False, False
    for i, char in enumerate(text):
        if quoted:
            quoted = escaped or char != '"'  # an unescaped quote closes the string
            escaped = not escaped and char == "\\"
        elif char == '"':
            quoted = True
        elif char in "{}":
            depth += 1 if char == "{" else -1
            if depth not in (0, 1):
                raise PassError(f"unbalanced braces in pipeline {text!r} at column {i}")
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth or quoted:
        raise PassError(f"unclosed {'quote' if quoted else '{'} in pipeline {text!r}")
    items.append(text[start:])
    for item in items:
        if not item.strip():
            raise PassError(f"empty item in pipeline {text!r}")
    return items


def _read_options(pass_name: str, text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    pos = 0
    while text[pos:].strip():
        match = _OPTION.match(text, pos)
        if not match:
            raise PassError(f"{pass_name}: cannot read options {text[pos:]!r}; write key=value")
        if match[1] in options:
            raise PassError(f"{pass_name}: option {match[1]} is given twice")
        options[match[1]] = match[2]
        pos = match.end()
    return options


def _import_backend(name: str) -> None:
    parts = name.split(".")
    if len(parts) == 3 and parts[0] == "ssa":
        module = f"compiler.backends.{parts[1]}"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
