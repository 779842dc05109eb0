"""The `Tuner` a kernel handle lends `ssa.select_schedule`: each candidate schedule is compiled
and timed on copies of the call's own arguments (a kernel that updates a tensor in place sees the
same input every time, and the caller's tensors are untouched)."""

from __future__ import annotations

import torch

from compiler.passes.hardware_dependent.select_schedule.autotune import Schedule, Tuner
from compiler.runtime.cache import cache_dir
from compiler.runtime.timing import device_name, time_launch

MODES = ("auto", "measure", "off")  # auto: measure on a GPU only; measure: also on the CPU


def wants_tuner(mode: str, device: str) -> bool:
    return mode == "measure" or (mode == "auto" and device != "cpu")


def call_tuner(handle, compile_schedule, args: tuple, kwargs: dict) -> Tuner:
    """`compile_schedule(schedule)` -> the artifact with those meta values given. The copies are
    made on the first measurement: a call whose choice is already made copies nothing."""
    bindings = {}

    def measure(schedule: Schedule) -> float:
        if not bindings:
            copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
            bindings.update(handle.bindings(*copies, **kwargs))
        return time_launch(compile_schedule(schedule), bindings)

    return Tuner(_identity(handle, args), measure, cache_dir() / "autotune.json")


def _identity(handle, args: tuple) -> str:
    shapes = " ".join(
        f"{t.name}={str(a.dtype).removeprefix('torch.')}[{'x'.join(map(str, a.shape))}]"
        for t, a in zip(handle.tensors, args, strict=True)
        if isinstance(a, torch.Tensor)
    )
    return f"{shapes} · {handle.backend} · {device_name(handle.device)}"
