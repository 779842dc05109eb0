"""Inline suppressions: `# lowering-audit: ignore[LWA001] reason: why this one is fine`.

A suppression covers its own line, or the next line when the comment stands alone. It needs codes
and a reason; one without a reason, with an unknown code, or that suppresses nothing is reported.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from audits.findings import Finding

MARKER = "lowering-audit:"
_DIRECTIVE = re.compile(
    r"#\s*lowering-audit:\s*ignore\[(?P<codes>[A-Za-z0-9_,\s]+)\]\s*(?:reason:\s*(?P<reason>.*))?$"
)
FORM = "# lowering-audit: ignore[CODE] reason: why it is fine"


@dataclass
class Suppression:
    line: int
    column: int
    target_line: int
    codes: frozenset[str]
    reason: str
    used: bool = False

    def covers(self, finding: Finding) -> bool:
        """Only a suppression with a reason hides anything."""
        return bool(self.reason) and self.target_line == finding.line and finding.code in self.codes


def apply_suppressions(
    path: str, source: str, findings: list[Finding], known_codes: frozenset[str]
) -> tuple[list[Finding], int]:
    """(findings left, with problems of the suppressions themselves; how many were suppressed)."""
    if MARKER not in source:
        return findings, 0
    suppressions, problems = _parse(path, source, known_codes)
    kept = []
    for finding in findings:
        covering = [s for s in suppressions if s.covers(finding)]
        for suppression in covering:
            suppression.used = True
        if not covering:
            kept.append(finding)
    for suppression in suppressions:
        if suppression.reason and not suppression.used:
            codes = ",".join(sorted(suppression.codes))
            message = f"suppression ignore[{codes}] matches no finding: remove it"
            problems.append(_problem(path, suppression, message))
    return kept + problems, len(findings) - len(kept)


def _parse(path: str, source: str, known_codes: frozenset[str]):
    suppressions, problems = [], []
    for line, column, text, alone in _comments(source):
        if MARKER not in text:
            continue
        directive = _DIRECTIVE.search(text)
        if directive is None:
            problems.append(_at(path, line, column, f"malformed suppression; write `{FORM}`", text))
            continue
        codes = frozenset(c.strip() for c in directive["codes"].split(",") if c.strip())
        reason = (directive["reason"] or "").strip()
        suppression = Suppression(line, column, line + 1 if alone else line, codes, reason)
        unknown = sorted(codes - known_codes)
        if unknown:
            problems.append(
                _problem(path, suppression, f"suppression names unknown code(s) {unknown}")
            )
        if not reason:
            problems.append(
                _problem(path, suppression, f"suppression needs a reason; write `{FORM}`")
            )
        suppressions.append(suppression)
    return suppressions, problems


def _comments(source: str):
    """(line, column, text, stands alone) of every comment; strings never count."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    for token in tokens:
        if token.type == tokenize.COMMENT:
            alone = not token.line[: token.start[1]].strip()
            yield token.start[0], token.start[1] + 1, token.string, alone


def _problem(path: str, suppression: Suppression, message: str) -> Finding:
    return _at(path, suppression.line, suppression.column, message, "suppression")


def _at(path: str, line: int, column: int, message: str, subject: str) -> Finding:
    return Finding(path, line, column, "LWA000", message, subject)
