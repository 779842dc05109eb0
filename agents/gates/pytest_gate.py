"""`pytest`: the tests the task names (its `args`: paths, node ids, `-m MARKER` ...), run in the
sandbox with a JUnit report, each failure a finding at the deepest file:line of the sandbox it
names. `select` keeps only the tests whose parametrize id matches one of its patterns as a whole
(`pytest_plugin/ntc_agent_select.py`), where `-k` would match any substring of a test's name.
Each test's start and end go to a progress file as they happen
(`pytest_plugin/ntc_agent_progress.py`), so that a run stopped by its time limit names the test
that was running and the slowest finished ones. `added` runs the Python test files the model
created at the task's `writable` globs too; with none and no `args`, the gate has nothing to judge
and passes, saying so. `affected` runs, of the tests under `args`, only those the change touches
(`affected.py`); when it touches none of them, the gate passes, saying so."""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from agents.gates import affected as affected_tests
from agents.gates.base import (
    Finding,
    GateContext,
    GateResult,
    broken,
    run_command,
    stopped,
    tail,
)
from agents.tasks import GateSpec

LOCATION = re.compile(r"^([^\s:]+\.py):(\d+):", re.MULTILINE)
NO_TESTS = 5
MESSAGE_CHARS = 1500
PLUGIN_DIR = Path(__file__).parent / "pytest_plugin"
PLUGIN = "ntc_agent_select"
PROGRESS_PLUGIN = "ntc_agent_progress"
_reports = itertools.count()


def run(spec: GateSpec, ctx: GateContext) -> GateResult:
    # The process id keeps a report apart from one a killed run's orphaned pytest still writes.
    report = ctx.scratch / f"pytest-{os.getpid()}-{next(_reports)}.xml"
    progress = report.with_suffix(".progress")
    report.unlink(missing_ok=True)
    progress.unlink(missing_ok=True)
    added = [f for f in ctx.sandbox.added_files() if f.endswith(".py")] if spec.added else []
    if spec.added and not added and not spec.args:
        return GateResult(spec.name, spec.kind, True, ran="no test file added: nothing to run")
    argv = [ctx.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short"]
    argv += ["-o", "junit_family=xunit1", f"--junitxml={report}", *spec.args, *added]
    argv += ["-p", PROGRESS_PLUGIN, f"--progress-file={progress}"]
    selection = None
    if spec.affected:
        selection = affected_tests.select(
            ctx.sandbox.root, spec.args, ctx.sandbox.changed_files(), spec.mentions
        )
        if not (selection.whole_files or selection.tests or selection.ids):
            return GateResult(spec.name, spec.kind, True, ran=f"no test to run: {selection.why()}")
        argv += [f"--keep-file={name}" for name in selection.whole_files]
        argv += [f"--keep-test={name}" for name in selection.tests]
    patterns = [*spec.select, *(selection.ids if selection else ())]
    if patterns or spec.affected:  # an affected gate keeps its files and tests through the plugin
        argv += ["-p", PLUGIN, *(f"--select-id={pattern}" for pattern in patterns)]
    path = os.pathsep.join([ctx.env["PYTHONPATH"], str(PLUGIN_DIR)])
    ctx = dataclasses.replace(ctx, env={**ctx.env, "PYTHONPATH": path})
    done = run_command(spec, ctx, argv)
    if done.returncode is None:
        return stopped(spec, argv, done, progress)
    if done.returncode == NO_TESTS and selection:
        ran = f"no test ran: {selection.why()}"
        return GateResult(spec.name, spec.kind, True, command=argv, seconds=done.seconds, ran=ran)
    if done.returncode == NO_TESTS:
        asked = " ".join(spec.args)
        if spec.select:
            asked += f"` with parametrize ids `{' '.join(spec.select)}"
        finding = Finding(".", 0, "TEST", f"the selection `{asked}` ran no test")
        return GateResult(spec.name, spec.kind, False, [finding], argv, done.seconds, tail(done))
    if not report.is_file():
        return broken(spec, argv, done, f"exited {done.returncode} without a report")
    xml = report.read_text(encoding="utf-8")
    findings = _failures(xml, ctx)
    if done.returncode != 0 and not findings:
        return broken(spec, argv, done, f"exited {done.returncode}")
    passed = not findings
    return GateResult(
        spec.name, spec.kind, passed, findings, argv, done.seconds, tail(done), _counts(xml)
    )


def _counts(xml: str) -> str:
    """How many tests the JUnit report holds, and how they ended."""
    suites = list(ElementTree.fromstring(xml).iter("testsuite"))
    total, failed, errors, skipped = (
        sum(int(suite.get(key) or 0) for suite in suites)
        for key in ("tests", "failures", "errors", "skipped")
    )
    passed = total - failed - errors - skipped
    return f"{total} tests: {passed} passed, {failed + errors} failed, {skipped} skipped"


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
