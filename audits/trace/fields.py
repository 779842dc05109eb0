"""Read artifacts and trace entries whether they are objects (the compiler's) or dicts (JSON)."""

from __future__ import annotations

from typing import Any

MISSING = object()

TRACE_ENTRY_KEYS = (
    "pass", "category", "options", "ir", "op_counts", "op_count_delta", "seconds", "changed",
    "verified",
)  # fmt: skip

# `pass` is a keyword, so a TraceEntry object may call that field `pass_` or `name`.
_ATTRIBUTE_SPELLINGS = {"pass": ("pass", "pass_", "name")}


def read(record: Any, name: str, default: Any = MISSING) -> Any:
    """`record[name]` for a mapping, `record.name` otherwise; `default` when absent."""
    if isinstance(record, dict):
        return record.get(name, default)
    for attribute in _ATTRIBUTE_SPELLINGS.get(name, (name,)):
        if hasattr(record, attribute):
            return getattr(record, attribute)
    return default
