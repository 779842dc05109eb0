"""A gate stopped by its time limit: no finding in the code, since the gate never judged the
change. What it tells instead: the limit, the test that was running when it stopped and the
slowest tests that had finished (for pytest gates, from `pytest_plugin/ntc_agent_progress.py`),
and the last lines of its output. The workflow runs such a gate once more, with the time the run
has left (`agents/gates/__init__.py`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

SLOWEST = 5  # finished tests named
LAST_LINES = 20  # of the output


@dataclass(frozen=True)
class TimeLimit:
    seconds: float  # the limit the gate ran under
    running: str = ""  # the test in flight when it stopped ("" when unknown or not pytest)
    running_for: float = 0.0
    slowest: list[tuple[str, float]] = field(default_factory=list)  # finished, slowest first
    last_lines: str = ""

    def details(self) -> list[str]:
        """What the model reads about where it stopped."""
        lines = []
        if self.running:
            lines.append(f"running when it stopped: {self.running} (for {self.running_for:.0f} s)")
        if self.slowest:
            shown = ", ".join(f"{test} {seconds:.1f} s" for test, seconds in self.slowest)
            lines.append(f"slowest finished tests: {shown}")
        if self.last_lines:
            output = self.last_lines.splitlines()
            lines += ["last lines of its output:", *(f"  {line}" for line in output)]
        return lines

    @classmethod
    def from_run(cls, seconds: float, output: str, progress: Path | None = None) -> TimeLimit:
        """The limit of a gate stopped after `seconds`; `progress`: a pytest gate's file."""
        last_lines = "\n".join(output.strip().splitlines()[-LAST_LINES:])
        if progress is None or not progress.is_file():
            return cls(seconds, last_lines=last_lines)
        started, finished = {}, []
        for line in progress.read_text(encoding="utf-8").splitlines():
            event = _event(line)
            if "start" in event:
                started[event["start"]] = event["at"]
            elif "finish" in event and event["finish"] in started:
                test = event["finish"]
                finished.append((test, event["at"] - started.pop(test)))
        finished.sort(key=lambda item: -item[1])
        running = max(started, key=started.get, default="")
        running_for = time.time() - started[running] if running else 0.0
        return cls(seconds, running, running_for, finished[:SLOWEST], last_lines)


def _event(line: str) -> dict:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return {}  # the line a kill cut short
