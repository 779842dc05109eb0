"""Measured autotuning for `ssa.select_schedule`: candidate schedules, timing them, a cache.

The pass knows the meta symbols and their bounds; the caller knows the arguments and the device.
So the caller lends the pass a `Tuner` (in `PassContext.tuner`): `measure(schedule)` compiles the
kernel with that schedule and times it on the real arguments. The best schedule is cached in a
JSON file per (kernel IR, shapes, backend, device), so a later compile skips the timing.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from compiler.passes.base import PassError

Schedule = dict[str, int]


@dataclass(frozen=True)
class Tuner:
    """`identity`: what besides the kernel the timings depend on (shapes, backend, device), as
    text; `measure(schedule)`: seconds one run takes with that schedule (raises if it cannot run);
    `cache`: the JSON file remembering the best schedule per key, or None."""

    identity: str
    measure: Callable[[Schedule], float]
    cache: Path | None = None


@dataclass(frozen=True)
class Choice:
    schedule: Schedule
    reason: str


def candidates(
    ranges: Mapping[str, tuple[int, int]], start: Schedule, limit: int
) -> list[Schedule]:
    """Powers of two within each symbol's [low, high], nearest to `start` first (distance in
    doublings summed over symbols), at most `limit`. `start` itself comes first."""
    axes = [
        [1 << e for e in range(max(low, 1).bit_length() - 1, high.bit_length()) if low <= 1 << e]
        for low, high in ranges.values()
    ]
    names = list(ranges)

    def distance(values: tuple[int, ...]) -> tuple[float, tuple[int, ...]]:
        far = sum(
            abs(math.log2(v) - math.log2(start[n])) for n, v in zip(names, values, strict=True)
        )
        return far, values

    grid = sorted(itertools.product(*axes), key=distance)
    return [dict(zip(names, values, strict=True)) for values in grid[: max(limit, 1)]]


def tune(tuner: Tuner, key: str, options: list[Schedule]) -> Choice:
    """The fastest of `options` by `tuner.measure`, or the cached choice for `key`."""
    cached = _read_cache(tuner.cache).get(key)
    if cached is not None and cached["schedule"] in options:
        return Choice(cached["schedule"], f"cached: measured earlier on {cached['timings']}")
    timings, failures = [], []
    for schedule in options:
        try:
            timings.append((tuner.measure(schedule), schedule))
        except Exception as error:  # a candidate that cannot compile or run is not chosen
            failures.append(f"{_spell(schedule)} failed: {error!r}"[:160])
    if not timings:
        raise PassError(
            f"ssa.select_schedule: none of {len(options)} candidate schedules ran on "
            f"{tuner.identity}: " + "; ".join(failures) + "; give the meta values yourself"
        )
    timings.sort(key=lambda pair: pair[0])
    best = timings[0][1]
    spelled = "; ".join(f"{_spell(s)} {seconds * 1e3:.4f} ms" for seconds, s in timings)
    failed = f"; {len(failures)} failed: " + " | ".join(failures) if failures else ""
    measured = f"{tuner.identity}: {spelled}{failed}"
    _write_cache(tuner.cache, key, {"schedule": best, "timings": measured})
    return Choice(best, f"fastest of {len(options)} candidates measured on {measured}")


def tuning_key(kernel_text: str, identity: str) -> str:
    return f"{hashlib.sha256(kernel_text.encode()).hexdigest()[:16]} {identity}"


def _spell(schedule: Schedule) -> str:
    return ",".join(f"{name}={value}" for name, value in schedule.items())


def _read_cache(path: Path | None) -> dict:
    if path is None or not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}  # a damaged cache only costs a re-measurement


def _write_cache(path: Path | None, key: str, entry: dict) -> None:
    if path is None:
        return
    entries = _read_cache(path) | {key: entry}
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as f:
        json.dump(entries, f, indent=1, sort_keys=True)
    os.replace(f.name, path)
