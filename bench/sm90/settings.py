"""What `bench/gpu.py` launches a suite kernel with on the GPU, and the form such a launch runs."""

from __future__ import annotations

import dataclasses

from compiler.backends import get_target
from compiler.runtime.coverage import covering
from compiler.runtime.index_width import fitting
from compiler.runtime.specialization import specialized
from compiler.suite import SuiteKernel


def bench_settings(kernel: SuiteKernel, backend: str | None) -> tuple[SuiteKernel, dict]:
    """The entry at the GPU block sizes `bench/gpu.py` gives `backend` (by its `tile_cap`; None:
    NineToothed, uncapped), and the call keywords there."""
    cap = get_target(backend, "cuda").capability("tile_cap") if backend else None
    call = kernel.bench_call_kwargs if kernel.bench_call_kwargs is not None else kernel.call_kwargs
    return dataclasses.replace(kernel, arrangement_kwargs=kernel.bench_blocks(cap)), dict(call)


def bench_tensors(kernel: SuiteKernel) -> list:
    """The benchmark's arguments as shapes only ("meta" tensors: nothing allocated; their data
    pointer 0 reads as aligned, as a CUDA allocation is)."""
    return kernel.bench_args(0, device="meta")


def launched(handle, args: list, call: dict):
    """(artifact, bindings) of the form a launch of `handle` on `args` runs: the grid covering
    every written tile, offsets in a width that holds them, specialized where the target asks
    (`compiler/runtime`'s launch plan)."""
    artifact = handle.compile(*args, **call)
    bindings = handle.bindings(*args, **call)
    return specialized(fitting(covering(artifact, bindings), bindings), bindings), bindings
