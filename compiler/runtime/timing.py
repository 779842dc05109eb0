"""How long one launch of an artifact takes: `triton.testing.do_bench` on a GPU (its median over
repeated runs, cache flushed in between), the median of a few wall-clock runs on the CPU."""

from __future__ import annotations

import functools
import platform
import statistics
import time
from collections.abc import Callable, Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.runtime.dispatch import launch

CPU_RUNS = 3


def time_launch(artifact: Artifact, bindings: Mapping[str, object]) -> float:
    """Seconds per launch; the first launch (build, load) is not counted."""
    return time_call(lambda: launch(artifact, bindings), artifact.device)


def time_call(run: Callable[[], object], device: str) -> float:
    """Seconds per call of `run` on `device`; the first call (build, load) is not counted."""
    run()
    if device == "cuda":
        import triton.testing

        return triton.testing.do_bench(run, return_mode="median") / 1e3
    runs = []
    for _ in range(CPU_RUNS):
        start = time.perf_counter()
        run()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


@functools.cache
def device_name(device: str) -> str:
    """The GPU's name ("NVIDIA H200"), else the device and the machine ("cpu (x86_64)")."""
    if device != "cpu" and torch.cuda.is_available():
        return torch.cuda.get_device_name()
    return f"{device} ({platform.machine()})"
