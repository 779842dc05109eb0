"""One process drives a run at a time.

A run killed outright leaves its checkpoint and can be resumed. But a process that was not killed
(`make agent` whose make was killed, not the Python under it) still drives the run, and a resume
beside it would send every later request a second time. `run_lock` holds an exclusive `flock` on
`<run>/lock` while a process drives the run; the kernel releases it when that process ends,
however it ends. A second driver is refused with the first one's process id.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agents.errors import AgentError

LOCK_FILE = "lock"


@contextmanager
def run_lock(folder: Path, run_id: str) -> Iterator[None]:
    with (folder / LOCK_FILE).open("a+", encoding="utf-8") as file:
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            file.seek(0)
            pid = file.read().strip() or "?"
            raise AgentError(
                f"run {run_id} is still driven by process {pid}: wait until it ends, or end it "
                f"(kill {pid}), then resume"
            ) from None
        file.seek(0)
        file.truncate()
        file.write(f"{os.getpid()}\n")
        file.flush()
        yield
