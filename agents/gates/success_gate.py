"""`success`: the task's success criteria, checked on the sandbox and the run's diff.

`files_exist`: paths that must exist; `diff_forbids`: regular expressions no added line may match
(a suppression comment, a baseline entry); `diff_touches`: path prefixes the diff must change."""

from __future__ import annotations

import re
import time

from agents.gates.base import Finding, GateContext, GateResult
from agents.tasks import GateSpec


def run(spec: GateSpec, ctx: GateContext) -> GateResult:
    start = time.monotonic()
    criteria = dict(spec.success)
    findings = [
        Finding(path, 0, "SUCCESS", "must exist when the task is done")
        for path in criteria.get("files_exist", ())
        if not (ctx.sandbox.root / path).exists()
    ]
    diff = ctx.sandbox.diff()
    for pattern in criteria.get("diff_forbids", ()):
        findings += _forbidden(diff, pattern)
    changed = ctx.sandbox.changed_files()
    for prefix in criteria.get("diff_touches", ()):
        if not any(path.startswith(prefix) for path in changed):
            findings.append(Finding(prefix, 0, "SUCCESS", "the change must touch this path"))
    seconds = time.monotonic() - start
    return GateResult(spec.name, spec.kind, not findings, findings, ["success"], seconds)


def _forbidden(diff: str, pattern: str) -> list[Finding]:
    findings, path, line = [], ".", 0
    for text in diff.splitlines():
        if text.startswith("+++ "):
            path = text[6:] if text.startswith("+++ b/") else text[4:]
        elif text.startswith("@@"):
            line = int(re.match(r"@@ -\S+ \+(\d+)", text).group(1)) - 1
        elif text.startswith("+"):
            line += 1
            if re.search(pattern, text[1:]):
                message = f"added line matches the forbidden pattern {pattern!r}; fix the code"
                findings.append(Finding(path, line, "SUCCESS", message))
        elif not text.startswith("-"):
            line += 1
    return findings
