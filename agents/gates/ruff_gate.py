"""`ruff`: `ruff check` and `ruff format --check` (the sandbox's own configuration, as `make lint`
runs them) over the Python files the run changed, or over the gate's `args` when it has any."""

from __future__ import annotations

import re

from agents.gates.base import Finding, GateContext, GateResult, broken, load_json, run_command
from agents.tasks import GateSpec

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)", re.MULTILINE)
SHOWN_DIFF_CHARS = 1500


def run(spec: GateSpec, ctx: GateContext) -> GateResult:
    changed = [p for p in ctx.sandbox.changed_files() if p.endswith(".py")]
    paths = list(spec.args) or [p for p in changed if (ctx.sandbox.root / p).is_file()]
    if not paths:
        return GateResult(spec.name, spec.kind, True)
    check = [ctx.python, "-m", "ruff", "check", "--no-cache", "--output-format", "json", *paths]
    done = run_command(spec, ctx, check)
    report = load_json(done.stdout)
    if done.returncode not in (0, 1) or not isinstance(report, list):
        return broken(spec, check, done, f"exited {done.returncode}")
    findings = [
        Finding(
            ctx.sandbox.relative(ctx.sandbox.root / item["filename"]),
            item["location"]["row"],
            item["code"] or "E999",  # a syntax error has no code
            item["message"],
        )
        for item in report
    ]
    fmt = [ctx.python, "-m", "ruff", "format", "--no-cache", "--check", "--diff", *paths]
    formatted = run_command(spec, ctx, fmt)
    if formatted.returncode not in (0, 1):
        return broken(spec, fmt, formatted, f"exited {formatted.returncode}")
    findings += _format_findings(formatted.stdout)
    seconds = done.seconds + formatted.seconds
    return GateResult(spec.name, spec.kind, not findings, findings, check, seconds)


def _format_findings(diff: str) -> list[Finding]:
    findings = []
    for chunk in re.split(r"^--- ", diff, flags=re.MULTILINE)[1:]:
        path = chunk.split("\n", 1)[0].strip()
        hunk = HUNK.search(chunk)
        excerpt = ("--- " + chunk)[:SHOWN_DIFF_CHARS]
        findings.append(
            Finding(
                path,
                int(hunk.group(1)) if hunk else 1,
                "FORMAT",
                f"not formatted as `ruff format` writes it; change it like this:\n{excerpt}",
            )
        )
    return findings
