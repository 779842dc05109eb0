"""Ending the process group of a command that a killed workflow left running.

A group is known by its id, the process id of the command that leads it. Before ending a group
the workflow recorded, `end` checks that it is still that one: where `/proc` tells a process's
start time, a leader started at another time is a stranger that was given the same id. A group
whose leader has exited but whose members still run keeps its id (Linux gives no new process an
id still in use as a group's), so it is still the recorded one.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from agents.errors import AgentError

PROC = Path("/proc")
WAIT_SECONDS = 10.0


def start_time(pid: int) -> int | None:
    """When the process started (clock ticks since boot), or None where /proc does not tell."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])  # field 22; the name in (...) may hold spaces


def end(group: int, leader_start: int | None) -> bool:
    """Kill the recorded group if it still runs, and wait until none of it does; whether it ran."""
    if not running(group):
        return False
    now = start_time(group)
    if leader_start is not None and now is not None and now != leader_start:
        return False  # the id now names another process: not ours to end
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        return False  # it ended meanwhile
    except PermissionError:
        return False  # another user's: the id was given to a stranger
    deadline = time.monotonic() + WAIT_SECONDS
    while running(group):
        if time.monotonic() > deadline:
            raise AgentError(
                f"process group {group} of an interrupted command did not end within "
                f"{WAIT_SECONDS:.0f} s of SIGKILL; end it (kill -9 -{group}), then resume again"
            )
        time.sleep(0.05)
    return True


def running(group: int) -> bool:
    """Whether a process of the group runs (zombies, ended but not reaped yet, do not count)."""
    if not PROC.is_dir():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True
    return any(_member_running(entry, group) for entry in PROC.iterdir() if entry.name.isdigit())


def _member_running(entry: Path, group: int) -> bool:
    try:
        fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False  # it ended while the folder was read
    state, process_group = fields[0], int(fields[2])
    return process_group == group and state != "Z"
