"""The one record every audit reports: where, which rule, what to do instead."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    path: (
        str  # posix path relative to the project root (or a trace location like trace/cuda/matmul)
    )
    line: int  # 1-based
    column: int  # 1-based
    code: str
    message: str
    subject: str = ""  # what was flagged (a name, a literal); baselines match on it, not on lines

    def as_text(self) -> str:
        return f"{self.path}:{self.line}:{self.column} {self.code} {self.message}"
