"""One unit of a sweep: its task through the workflow in a fresh sandbox of the sweep's commit,
then the eval's grading of the tree the run left, and a record of both. The same function runs
in a local worker process and in a Ray task; it raises when the run could not happen (the
endpoint stayed down, a replay diverged), and the executor tries such a unit once more.

The record holds what the run cost and met: outcome, model calls, tokens, dollars, seconds, gate
failures by gate, audit findings by code, tool calls, whether the skill was activated, and the
grade of every expectation. The artifacts (patch, report, gzipped transcript) go with it.
"""

from __future__ import annotations

import gzip
import json
import shutil
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

from agents.errors import AgentError
from agents.run import RunSpec, default_home, gate_env, start
from agents.sandbox import Sandbox, _git
from agents.sweep.plan import Unit
from agents.transcript import FILE_NAME, read_events
from skills.evals import Commands, Result, grade

GRADE_TIMEOUT = 3600.0  # seconds per grading command: a hung test suite fails its check


class UnitFailed(AgentError):
    """The unit's run could not happen; the message says why."""


def run_unit(unit: Unit, source: str, api_key: str | None, keep: bool = False) -> dict:
    """`{"record": ..., "artifacts": {name: bytes}}` for `unit`, its sandbox cloned from the
    repository at `source`; the work folder is removed afterwards unless `keep`."""
    started = time.monotonic()
    base = default_home() / "sweeps"
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{unit.run_id}.", dir=base))
    try:
        spec = _spec(unit, source, work)
        result = start(spec, api_key, say=lambda text: None)
        if result.status == "paused":
            raise UnitFailed(f"{unit.key}: the run paused: {result.pending}")
        sandbox = spec.folder / "sandbox"
        grades = grade(None, unit.case, sandbox, _grading_commands(unit, spec, sandbox))
        out = Path(spec.out)
        record = describe(unit, read_events(out), grades)
        record["wall_seconds"] = round(time.monotonic() - started, 1)
        record["host"] = socket.gethostname()
        if keep:
            record["kept"] = str(work)
        transcript = gzip.compress((out / FILE_NAME).read_bytes(), mtime=0)
        artifacts = {
            "patch.diff": (out / "patch.diff").read_bytes(),
            "report.md": (out / "report.md").read_bytes(),
            f"{FILE_NAME}.gz": transcript,
        }
        return {"record": record, "artifacts": artifacts}
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def _spec(unit: Unit, source: str, work: Path) -> RunSpec:
    task = work / "task"
    (task / "setup").mkdir(parents=True)
    setup = []
    for index, (path, content) in enumerate(sorted(unit.setup.items())):
        (task / "setup" / str(index)).write_text(content, encoding="utf-8")
        setup.append({"path": path, "from": f"setup/{index}"})
    task_file = task / f"{unit.eval_id}.yaml"
    task_file.write_text(yaml.safe_dump({**unit.task, "setup": setup}, sort_keys=False))
    if "replay" in unit.endpoint:
        recorded = work / "replay" / FILE_NAME
        recorded.parent.mkdir()
        recorded.write_bytes(gzip.decompress(unit.endpoint["replay"]))
        model, base_url = f"replay:{recorded}", None
    else:
        model, base_url = unit.endpoint["model"], unit.endpoint["base_url"]
    return RunSpec(
        run_id=unit.run_id,
        task=str(task_file),
        params={},
        model=model,
        base_url=base_url,
        repo=source,
        commit=unit.commit,
        home=str(work / "home"),
        out=str(work / "out"),
    )


def _grading_commands(unit: Unit, spec: RunSpec, sandbox: Path) -> Commands:
    """The eval's commands as the gates run theirs (same interpreter and environment), on the
    tree the run left with the withheld skill put back, so both arms are graded alike."""
    if unit.arm == "without":
        _git(sandbox, "checkout", unit.commit, "--", f"skills/{unit.skill}")
    env = gate_env(spec.folder, Sandbox.open(sandbox, ()))
    where = str(Path(sys.executable).parent)
    table = {key: command.replace("{bin}", where) for key, command in unit.commands.items()}
    return Commands(table, env, GRADE_TIMEOUT)


def describe(unit: Unit, events: list[dict], grades: list[Result]) -> dict:
    """The run's record from its transcript and the grades."""
    report = events[-1]
    if report["type"] != "report":
        raise UnitFailed(f"{unit.key}: the transcript ends without a report")
    usage = report["usage"]
    gates = [result for e in events if e["type"] == "gates" for result in e["results"]]
    tools = [e for e in events if e["type"] == "tool"]
    checked = [g for g in grades if g.status != "judge"]
    return unit.identity() | {
        "provider": events[0]["provider"],
        "outcome": report["status"],
        "reason": report["reason"],
        "passed": all(g.status == "pass" for g in checked) if checked else None,
        "grades": [{"text": g.text, "status": g.status, "detail": g.detail} for g in grades],
        "skill_activated": any(_activates(e, unit.skill) for e in tools),
        "calls": usage["steps"],
        "prompt_tokens": usage["prompt_tokens"],
        "completion_tokens": usage["completion_tokens"],
        "tokens": usage["prompt_tokens"] + usage["completion_tokens"],
        "tokens_estimated": usage["tokens_estimated"],
        "dollars": round(usage["dollars"], 6),
        "seconds": round(usage["seconds"], 1),
        "gate_rounds": report["gate_rounds"],
        "gate_failures": {
            name: g["failed"] for name, g in sorted(usage["gates"].items()) if g["failed"]
        },
        "audit_findings": _counts(
            f["code"] for g in gates if g["kind"] == "audit" for f in g["findings"]
        ),
        "tool_calls": {name: t["calls"] for name, t in sorted(usage["tools"].items())},
        "refused_tool_calls": usage["refused_tool_calls"],
        "malformed_tool_calls": usage["malformed_tool_calls"],
        "changed": report["changed"],
    }


def _activates(event: dict, skill: str) -> bool:
    if event["name"] != "activate_skill" or event["status"] != "ok":
        return False
    try:
        return json.loads(event["arguments"]).get("name") == skill
    except (json.JSONDecodeError, AttributeError):
        return False


def _counts(items) -> dict[str, int]:
    return dict(sorted(Counter(items).items()))
