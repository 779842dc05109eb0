"""`path:line:col CODE message`, one finding a line, then a one-line summary."""

from __future__ import annotations

from audits.findings import Finding


def render_text(findings: list[Finding], summary: str) -> str:
    lines = [finding.as_text() for finding in findings]
    return "\n".join([*lines, summary]) + "\n"
