"""Op names in the IR's text form: `%3 = arith.add(%1, %2) : tile<f32[64]>`, `mem.store(...)`."""

from __future__ import annotations

import re
from collections import Counter

_OP = re.compile(r"^\s*(?:%[^=\n]*=\s*)?([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_.]*)\(", re.MULTILINE)


def ops_in_ir(text: str) -> Counter:
    return Counter(_OP.findall(text or ""))


def present_ops(op_counts: dict | None, ir_text: str | None) -> set[str]:
    """Ops the entry says it has (counts above zero) together with those its IR text shows."""
    counted = {name for name, count in (op_counts or {}).items() if count}
    return counted | set(ops_in_ir(ir_text or ""))
