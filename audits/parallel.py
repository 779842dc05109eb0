"""Running the rules over many parsed files on every core the audit may use.

The rules of one file read the trees of every file (imported constants resolve across the
project), and handing trees to another process costs more than parsing them. So the audit parses
once and then forks: a forked child sees the parent's trees as they are, without copying, and
sends back only its findings. Where fork is missing (Windows), where other threads run (a child
would inherit the locks they hold, but not them) or where one core is all there is, the work runs
here, in order.
"""

from __future__ import annotations

import os
import pickle
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class ChildFailed(RuntimeError):
    """A forked child raised; the message holds its traceback."""


def cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def map_forked(
    work: Callable[[Item], Result], items: Sequence[Item], weight: Callable[[Item], int]
) -> list[Result]:
    """[work(item) for item in items], the items shared out by weight over forked children."""
    may_fork = hasattr(os, "fork") and threading.active_count() == 1
    shares = _shares(items, weight, cores() if may_fork else 1)
    children = [_fork(work, share) for share in shares[1:]]
    try:
        results = {index: work(item) for index, item in shares[0]}
        for _, reading in children:
            with os.fdopen(reading, "rb", closefd=False) as pipe:
                status, value = pickle.loads(pipe.read())
            if status != "ok":
                raise ChildFailed(f"the audit failed in a worker process:\n{value}")
            results.update(value)
    finally:  # a child still writing sees its pipe closed and exits
        for pid, reading in children:
            os.close(reading)
            os.waitpid(pid, 0)
    return [results[index] for index in range(len(items))]


def _shares(items: Sequence, weight: Callable, count: int) -> list[list[tuple[int, object]]]:
    """`count` lists of (index, item) of about equal total weight, heaviest items placed first."""
    shares: list[list] = [[] for _ in range(max(1, min(count, len(items))))]
    loads = [0] * len(shares)
    for index in sorted(range(len(items)), key=lambda i: -weight(items[i])):
        lightest = loads.index(min(loads))
        shares[lightest].append((index, items[index]))
        loads[lightest] += weight(items[index])
    return shares


def _fork(work: Callable, share: list[tuple[int, object]]) -> tuple[int, int]:
    reading, writing = os.pipe()
    pid = os.fork()
    if pid:
        os.close(writing)
        return pid, reading
    os.close(reading)
    try:
        try:
            message = pickle.dumps(("ok", {index: work(item) for index, item in share}))
        except BaseException:  # the parent reports it
            message = pickle.dumps(("failed", traceback.format_exc()))
        with os.fdopen(writing, "wb") as pipe:
            pipe.write(message)
    finally:  # a forked child never returns into its caller's code
        os._exit(0)
