"""The command a run has in flight, recorded in `<run>/in_flight.json` beside its checkpoint.

Every command of the gates and of the `run` tool runs in a process group of its own
(`Sandbox.run`). Its record (the step it belongs to and its words) is written before it starts,
its group as soon as the group exists, and the group is cleared when the command has ended. A
workflow killed outright (kill -9, the out-of-memory killer) leaves the record, and perhaps the
command still running. On resume, `recover` ends that group (SIGKILL, then waits until none of it
runs) before the workflow goes on, and hands back the record: the step that the kill cut short
then tells the model its command was interrupted instead of running it a second time
(`agents/nodes.py`). The record stays until the next command replaces it, so a resume killed in
turn still knows which step was cut short.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from agents import process_group

FILE_NAME = "in_flight.json"
GATES = ""  # the step of the gates' commands, which a resumed run runs again


@dataclass(frozen=True)
class Command:
    step: str  # the tool call it was run for (`Nodes.tools`), or GATES
    argv: list[str]
    group: int | None = None  # its process group while it runs
    leader_start: int | None = None  # when the group's leader started, where /proc tells


class InFlight:
    def __init__(self, path: Path | None):
        self.path = path  # None: a sandbox outside a run, which records nothing
        self.step = GATES

    @contextmanager
    def during(self, step: str) -> Iterator[None]:
        """Record the commands run inside as `step`'s."""
        self.step = step
        try:
            yield
        finally:
            self.step = GATES

    @contextmanager
    def running(self, argv: list[str]) -> Iterator[Callable[[int], None]]:
        """Record a command around its run; call what it yields with its group once it exists."""
        command = Command(self.step, argv)
        self._write(command)

        def started(group: int) -> None:
            self._write(replace(command, group=group, leader_start=process_group.start_time(group)))

        try:
            yield started
        finally:
            self._write(command)

    def recover(self) -> tuple[Command, bool] | None:
        """The command a killed workflow had in flight, and whether some of it still ran (it is
        ended now); None if no command was recorded."""
        if self.path is None or not self.path.is_file():
            return None
        command = Command(**json.loads(self.path.read_text(encoding="utf-8")))
        if command.group is None:
            return command, False
        ended = process_group.end(command.group, command.leader_start)
        command = replace(command, group=None, leader_start=None)
        self._write(command)
        return command, ended

    def _write(self, command: Command) -> None:
        if self.path is None:
            return
        # Written whole and then renamed: a kill never leaves half a record.
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(asdict(command)) + "\n", encoding="utf-8")
        partial.replace(self.path)
