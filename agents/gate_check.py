"""`python -m agents gates --task T [--patch FILE]`: a task's gates on a change, without a model.

The sandbox is a fresh clone of the commit, prepared as a run's (earlier runs out, the task's
setup in), with the patch applied (`git apply`; none: the tree as it is). Every gate runs as in a
run, and the table gives each one's verdict, what it ran and its seconds: how a task's `typical`
times are measured, and how a person checks a change against a task's gates before handing it to
a model.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agents.errors import AgentError
from agents.gates import GateContext, GateResult, check_kinds, feedback, run_gates
from agents.run import gate_env, prepare_sandbox
from agents.sandbox import Sandbox
from agents.tasks import load_task

SECONDS_LEFT = 3600.0  # for a gate's second try, as a run that has an hour left


def check_gates(
    task_name: str,
    params: dict[str, str],
    repo: Path,
    commit: str,
    patch: Path | None,
    folder: Path,
    say: Callable[[str], None] = print,
) -> list[tuple[GateResult, float]]:
    task = load_task(task_name, params)
    check_kinds(task.gates, str(task.source))
    sandbox = Sandbox.create(repo, folder / "sandbox", commit, task.allow_edits, task.writable)
    sandbox = prepare_sandbox(sandbox, task)
    if patch is not None:
        applied = subprocess.run(
            ["git", "apply", str(patch.resolve())], cwd=sandbox.root, capture_output=True, text=True
        )
        if applied.returncode != 0:
            raise AgentError(f"{patch}: does not apply to {commit}: {applied.stderr.strip()}")
    scratch = folder / "gates"
    scratch.mkdir(exist_ok=True)
    context = GateContext(sandbox, sys.executable, gate_env(folder, sandbox), scratch)
    timed = []
    for gate in task.gates:
        say(f"gate {gate.name} ...")
        start = time.monotonic()
        (result,) = run_gates((gate,), context, SECONDS_LEFT)
        timed.append((result, time.monotonic() - start))
    say(table(timed))
    say(feedback([result for result, _ in timed]))
    return timed


def table(timed: list[tuple[GateResult, float]]) -> str:
    lines = ["| gate | verdict | seconds | ran |", "|---|---|---:|---|"]
    for result, seconds in timed:
        verdict = "passed" if result.passed else "stopped" if result.time_limit else "failed"
        lines.append(f"| {result.name} | {verdict} | {seconds:.1f} | {result.ran} |")
    return "\n".join(lines)
