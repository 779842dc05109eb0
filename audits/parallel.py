"""Auditing many files on every core the audit may use.

The rules of one file read other files (imported constants resolve across the project), and
handing parsed trees to another process costs more than parsing them. So each process parses a
share of the files, the processes swap short summaries (which names each file binds), and each
audits its share, parsing another share's file itself only where a name it looks up leads there.
Where fork is missing (Windows), where other threads run (a child would inherit the locks they
hold, but not them) or where one core is all there is, one process does it all.
"""

from __future__ import annotations

import os
import pickle
import struct
import threading
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Share = list[tuple[int, Any]]  # (index in the items, item)


class ChildFailed(RuntimeError):
    """A forked child raised; the message holds its traceback."""


def cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def run_shared(
    items: Sequence,
    weight: Callable[[Any], int],
    first: Callable[[Share], Any],
    then: Callable[[Share, list, Any], list],
    common: Callable[[], Any] = lambda: None,
) -> tuple[list, Any]:
    """Share `items` out by weight over forked processes: (one result per item, in order, and
    `common()`'s value).

    Each process runs `first(share)` (its summary), then `then(share, summaries, shared)` with
    every process's summary and the value of `common()`, which this process alone runs, in a
    thread while it does its own `first`; `then` returns one result per item of its share.
    """
    may_fork = hasattr(os, "fork") and threading.active_count() == 1
    shares = _shares(items, weight, cores() if may_fork else 1)
    children = [_fork(share, first, then) for share in shares[1:]]
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:  # started after the fork
            pending = pool.submit(common)
            summaries = [first(shares[0])]
            shared = pending.result()
        summaries += [_receive(up) for _, up, _ in children]
        for _, _, down in children:
            _send(down, ("ok", (summaries, shared)))
        results = dict(
            zip([i for i, _ in shares[0]], then(shares[0], summaries, shared), strict=True)
        )
        for (_, up, _), share in zip(children, shares[1:], strict=True):
            results.update(zip([i for i, _ in share], _receive(up), strict=True))
    finally:  # a child still reading or writing sees its pipe closed and exits
        for pid, up, down in children:
            os.close(up)
            os.close(down)
            os.waitpid(pid, 0)
    return [results[index] for index in range(len(items))], shared


def _shares(items: Sequence, weight: Callable, count: int) -> list[Share]:
    """`count` shares of about equal total weight (heaviest items placed first), each in the
    items' order."""
    shares: list[Share] = [[] for _ in range(max(1, min(count, len(items))))]
    loads = [0] * len(shares)
    for index in sorted(range(len(items)), key=lambda i: -weight(items[i])):
        lightest = loads.index(min(loads))
        shares[lightest].append((index, items[index]))
        loads[lightest] += weight(items[index])
    return [sorted(share, key=lambda pair: pair[0]) for share in shares]


def _fork(share: Share, first: Callable, then: Callable) -> tuple[int, int, int]:
    """(pid, the pipe it writes to, the pipe it reads from) of a child that does `share`."""
    up_read, up_write = os.pipe()
    down_read, down_write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(up_write)
        os.close(down_read)
        return pid, up_read, down_write
    os.close(up_read)
    os.close(down_write)
    try:
        try:
            _send(up_write, ("ok", first(share)))
            summaries, shared = _receive(down_read)
            _send(up_write, ("ok", then(share, summaries, shared)))
        except BaseException:  # the parent reports it
            _send(up_write, ("failed", traceback.format_exc()))
    finally:  # a forked child never returns into its caller's code
        os._exit(0)


def _send(pipe: int, message) -> None:
    data = pickle.dumps(message)
    with os.fdopen(pipe, "wb", closefd=False) as stream:
        stream.write(struct.pack("<Q", len(data)) + data)


def _receive(pipe: int):
    """The value the other process sent; ChildFailed where it failed or ended first."""
    with os.fdopen(pipe, "rb", closefd=False) as stream:
        header = stream.read(8)
        if len(header) < 8:
            raise ChildFailed("a worker process of the audit ended without an answer")
        message = pickle.loads(stream.read(struct.unpack("<Q", header)[0]))
    status, value = message
    if status != "ok":
        raise ChildFailed(f"the audit failed in a worker process:\n{value}")
    return value
