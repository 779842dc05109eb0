"""Runs of test tasks (`tests/agents/tasks/`) against the fake server, with a test API key."""

from __future__ import annotations

import os
from pathlib import Path

from agents.run import PROJECT_ROOT, RunSpec, start

TASKS = Path(__file__).parent / "tasks"
API_KEY = "sk-test-0123456789abcdefSECRET"


def spec(home: Path, server, task: str = "quick", run_id: str = "run", **options) -> RunSpec:
    """A run of `tests/agents/tasks/<task>.yaml` (or a task name/path) against `server`."""
    file = TASKS / f"{task}.yaml"
    return RunSpec(
        run_id=run_id,
        task=str(file) if file.is_file() else task,
        params=options.pop("params", {}),
        model="fake-model",
        base_url=server.base_url,
        repo=str(PROJECT_ROOT),
        commit="HEAD",
        home=str(home),
        out=str(home / run_id / "transcript"),
        retry={"attempts": 3, "base_seconds": 0.01},
        **options,
    )


def run(home: Path, server, **options):
    return start(spec(home, server, **options), API_KEY, say=lambda text: None)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.is_file() and "\nState:\tZ" in status.read_text())
