"""Running units in parallel: worker processes on this machine (`Workers`) or Ray tasks on a
cluster (`agents/sweep/ray_tasks.py`), behind one loop that streams results back as they finish
and tries a unit that failed or was lost (its worker died) once more.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

from agents.run import PROJECT_ROOT
from agents.sweep.plan import Unit
from agents.sweep.unit import run_unit

ATTEMPTS = 2  # a failed or lost unit is tried once more


class Backend(Protocol):
    name: str

    def submit(self, unit: Unit) -> object:
        """Start `unit`; a handle for `next_done`."""

    def next_done(self, handles: list) -> tuple[object, dict | BaseException]:
        """Wait for one of `handles` to finish: it and its result, or what it failed with."""


def run_all(backend: Backend, units: list[Unit]) -> Iterator[tuple[Unit, dict | Exception, int]]:
    """(unit, its result or the last error, attempts) for every unit, in the order they end."""
    pending = {backend.submit(unit): (unit, 1) for unit in units}
    while pending:
        handle, value = backend.next_done(list(pending))
        unit, attempt = pending.pop(handle)
        if isinstance(value, BaseException) and not isinstance(value, Exception):
            raise value  # KeyboardInterrupt and the like end the sweep; it resumes later
        if isinstance(value, Exception) and attempt < ATTEMPTS:
            pending[backend.submit(unit)] = (unit, attempt + 1)
            continue
        yield unit, value, attempt


class Workers:
    """`count` worker processes (spawned: no state of the driver is shared with them), each
    running `work(unit, source, api_key, keep)` on the units it gets."""

    name = "workers"

    def __init__(self, count: int, api_key: str | None, keep: bool = False, work=run_unit):
        self.count = count
        self.api_key = api_key
        self.keep = keep
        self.work = work
        self.pool = self._pool()

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.count, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, unit: Unit) -> Future:
        arguments = (unit, str(PROJECT_ROOT), self.api_key, self.keep)
        try:
            return self.pool.submit(self.work, *arguments)
        except BrokenProcessPool:  # a worker died: its units come back as failed; start afresh
            self.pool.shutdown(cancel_futures=True)
            self.pool = self._pool()
            return self.pool.submit(self.work, *arguments)

    def next_done(self, handles: list[Future]) -> tuple[Future, dict | BaseException]:
        done, _ = wait(handles, return_when=FIRST_COMPLETED)
        future = next(f for f in handles if f in done)  # the earliest submitted of those done
        error = future.exception()
        return future, error if error is not None else future.result()

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)
