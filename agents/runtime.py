"""What the graph's nodes use besides the state: the run's sandbox, tools, client and transcript.

Nothing here is checkpointed; `agents/run.py` rebuilds it from `run.json` when a run resumes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agents.budget import Budget
from agents.client import ModelClient
from agents.commands import allowlist
from agents.gates import GateContext, GateResult, run_gates
from agents.in_flight import Command
from agents.prompts import gates_message
from agents.sandbox import Sandbox
from agents.skills import Skill
from agents.tasks import Task
from agents.tools import ToolBox
from agents.transcript import TranscriptWriter


@dataclass
class Runtime:
    run_id: str
    task: Task
    sandbox: Sandbox
    skills: dict[str, Skill]
    client: ModelClient
    transcript: TranscriptWriter
    budget: Budget
    gate_context: GateContext
    approve: bool
    out: Path  # the transcript folder: report and patch go there too
    header: dict
    say: Callable[[str], None] = print
    interrupted: Command | None = None  # what a killed workflow had in flight (a resumed run)
    tools: ToolBox = field(init=False)

    def __post_init__(self) -> None:
        allowed = allowlist(self.task.commands, self.sandbox.root, self.task.scratch)
        self.tools = ToolBox(
            self.gate_context, self.skills, self.check, allowed, self.task.withhold
        )

    def check(
        self, seconds_left: float, after_finish: bool = False
    ) -> tuple[str, list[GateResult]]:
        """Run the task's gates (`seconds_left`: the time budget left, for a retry after a gate's
        time limit); the model's message about them, and the results."""
        start = time.monotonic()
        results = run_gates(self.task.gates, self.gate_context, seconds_left)
        self.transcript.event(
            "gates",
            after_finish=after_finish,
            seconds=round(time.monotonic() - start, 3),
            results=[r.to_dict() for r in results],
        )
        self.say("gates: " + ", ".join(f"{r.name} {_verdict(r)}" for r in results))
        return gates_message(results, after_finish=after_finish), results


def _verdict(result: GateResult) -> str:
    if result.time_limit:
        return "STOPPED by its time limit"
    return "ok" if result.passed else "FAILED"
