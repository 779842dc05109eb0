"""`pytest`: the tests the task names (its `args`: paths, node ids, `-k` ...), run in the sandbox
with a JUnit report, each failure a finding at the deepest file:line of the sandbox it names."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ElementTree

from agents.gates.base import Finding, GateContext, GateResult, broken, run_command, tail
from agents.tasks import GateSpec

LOCATION = re.compile(r"^([^\s:]+\.py):(\d+):", re.MULTILINE)
NO_TESTS = 5
MESSAGE_CHARS = 1500
_reports = itertools.count()


def run(spec: GateSpec, ctx: GateContext) -> GateResult:
    report = ctx.scratch / f"pytest-{next(_reports)}.xml"
    report.unlink(missing_ok=True)
    argv = [ctx.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short"]
    argv += ["-o", "junit_family=xunit1", f"--junitxml={report}", *spec.args]
    done = run_command(spec, ctx, argv)
    if done.returncode == NO_TESTS:
        selection = " ".join(spec.args)
        finding = Finding(".", 0, "TEST", f"the selection `{selection}` ran no test")
        return GateResult(spec.name, spec.kind, False, [finding], argv, done.seconds, tail(done))
    if done.returncode is None or not report.is_file():
        return broken(spec, argv, done, f"exited {done.returncode} without a report")
    findings = _failures(report.read_text(encoding="utf-8"), ctx)
    if done.returncode != 0 and not findings:
        return broken(spec, argv, done, f"exited {done.returncode}")
    return GateResult(spec.name, spec.kind, not findings, findings, argv, done.seconds, tail(done))


def _failures(xml: str, ctx: GateContext) -> list[Finding]:
    findings = []
    for case in ElementTree.fromstring(xml).iter("testcase"):
        for problem in [*case.findall("failure"), *case.findall("error")]:
            text = (problem.text or "").strip()
            path, line = _location(text, ctx) or (
                case.get("file") or ".",
                int(case.get("line") or -1) + 1,
            )
            test = "::".join(p for p in (case.get("classname"), case.get("name")) if p)
            summary = problem.get("message") or problem.tag
            detail = text[-MESSAGE_CHARS:]
            findings.append(Finding(path, line, "TEST", f"{test}: {summary}\n{detail}"))
    return findings


def _location(text: str, ctx: GateContext) -> tuple[str, int] | None:
    """The last file:line of the traceback that lies in the sandbox."""
    for path, line in reversed(LOCATION.findall(text)):
        candidate = (ctx.sandbox.root / path).resolve()
        if candidate.is_relative_to(ctx.sandbox.root) and candidate.is_file():
            return ctx.sandbox.relative(candidate), int(line)
    return None
