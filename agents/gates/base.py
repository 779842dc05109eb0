"""What every gate shares: findings, results, and running a command in the sandbox. A gate that
runs out of time has no findings but a time limit (`time_limit.py`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agents.gates.time_limit import TimeLimit
from agents.sandbox import Completed, Sandbox
from agents.tasks import GateSpec

TAIL_CHARS = 2000  # of a command's output, when it failed in a way no parser understands


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the sandbox root, or a location such as trace/<backend>/<kernel>
    line: int
    code: str  # the rule: a ruff or audit code, TEST, FORMAT, SUCCESS, GATE
    message: str

    def text(self) -> str:
        return f"{self.path}:{self.line}: {self.code} {self.message}"


@dataclass
class GateResult:
    name: str
    kind: str
    passed: bool
    findings: list[Finding] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""  # the tail of the output, for the transcript (not sent to the model)
    ran: str = ""  # what it checked, for people (pytest: "112 tests: 110 passed, 2 skipped")
    time_limit: TimeLimit | None = None  # it ran out of time: not passed, and no findings
    retried_after: TimeLimit | None = None  # this is the second try; the first one ran out of time

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GateContext:
    sandbox: Sandbox
    python: str  # the interpreter the gates run with (the workflow's own)
    env: dict[str, str]  # the environment of every gate command
    scratch: Path  # where gates may write reports (outside the sandbox)


def run_command(spec: GateSpec, ctx: GateContext, argv: list[str]) -> Completed:
    return ctx.sandbox.run(argv, spec.timeout, ctx.env)


def tail(done: Completed) -> str:
    return (done.stdout + "\n" + done.stderr).strip()[-TAIL_CHARS:]


def stopped(
    spec: GateSpec, argv: list[str], done: Completed, progress: Path | None = None
) -> GateResult:
    """The gate ran out of time (`progress`: a pytest gate's record of its tests)."""
    limit = TimeLimit.from_run(spec.timeout, tail(done), progress)
    return GateResult(
        spec.name, spec.kind, False, [], argv, done.seconds, tail(done), time_limit=limit
    )


def broken(spec: GateSpec, argv: list[str], done: Completed, why: str) -> GateResult:
    """The gate could not judge the change (crash, unreadable output): a failure."""
    if done.returncode is None:
        return stopped(spec, argv, done)
    message = f"{spec.name} {why}: {' '.join(argv[1:])}\n{tail(done)}"
    return GateResult(
        spec.name,
        spec.kind,
        False,
        [Finding(".", 0, "GATE", message)],
        argv,
        done.seconds,
        tail(done),
    )


def load_json(text: str) -> object | None:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None
