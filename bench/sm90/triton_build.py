"""A Triton launch compiled for sm_90 instead of run, on a machine without a GPU.

The launch goes through Triton's own `JITFunction.run` with a driver that answers for an H100, so
the kernel is specialized exactly as on the GPU (pointers 16-byte aligned, integers 16 divides and
integers equal to 1 as constants, NineToothed's constexpr shapes), with the launch's `num_warps`
and `num_stages`. Triton's `jit_cache_hook` takes that specialization and stops the launch before
it compiles; `JITFunction.preload` then compiles it for sm_90 with Triton's bundled ptxas, whose
`-v` log Triton prints when asked (`dump_ptxas_log`). Our form is the one `compiler/runtime`'s
launch runs (`settings.launched`), given the arguments its launch gives; NineToothed's goes through
the handle its `make` returns. Both at the block sizes `bench/gpu.py` gives each.

Needs a process where Triton compiles rather than interprets (`TRITON_INTERPRET` unset).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import triton
from triton import knobs
from triton.backends.compiler import GPUTarget

from compiler.runtime.bindings import TORCH_DTYPES
from compiler.runtime.cache import load_module
from compiler.suite import SuiteKernel, load_program
from compiler.suite.checking import build
from compiler.suite.loader import bound_arrangement

from .settings import bench_settings, launched

# What Triton's CUDA driver reports for an H100 or H200: NineToothed's default `num_stages` is
# max_shared_mem // 32 KiB (7 here), its autotuning space is sized by max_num_regs.
HOPPER = {"max_shared_mem": 232448, "max_num_regs": 65536, "multiprocessor_count": 132}


@dataclass
class TritonBuild:
    name: str  # the kernel's name in the cubin
    source: str  # the Triton source compiled
    cubin: bytes
    ptxas_log: str  # Triton's `ptxas -v` output
    shared_bytes: int  # dynamic shared memory the launch asks for
    num_warps: int
    num_stages: int


class _HopperUtils:
    @staticmethod
    def get_device_properties(device):
        return dict(HOPPER)


class _HopperDriver:
    """The questions a launch and NineToothed's `make` ask of Triton's active driver."""

    utils = _HopperUtils()

    def get_current_device(self):
        return 0

    def get_current_stream(self, device):
        return 0

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)

    def get_benchmarker(self):
        return lambda kernel_call, quantiles: [1.0 for _ in quantiles]  # nothing is timed


@contextlib.contextmanager
def _hopper() -> Iterator[None]:
    saved = triton.runtime.driver._active
    triton.runtime.driver._active = _HopperDriver()
    try:
        yield
    finally:
        triton.runtime.driver._active = saved


@contextlib.contextmanager
def _intercepted() -> Iterator[list]:
    """Launches in the block are specialized, not compiled or run: (JITFunction, specialization
    data) of each, in order."""
    launches: list = []

    def hook(*, fn, compile, **_):
        launches.append((fn.jit_function, compile["specialization_data"]))
        return True  # skip the compile, and so the launch

    with _hopper(), knobs.runtime.scope():
        knobs.runtime.jit_cache_hook = hook
        yield launches


def _compiled(launches: list, source: str) -> TritonBuild:
    if knobs.runtime.interpret:
        raise RuntimeError("Triton is interpreting in this process: unset TRITON_INTERPRET")
    if not launches:
        raise RuntimeError("the launch reached no Triton kernel")
    function, data = launches[-1]  # an autotuner's launch after its (untimed) search
    log = io.StringIO()
    with _hopper(), knobs.compilation.scope(), knobs.nvidia.scope():
        knobs.compilation.always_compile = True  # a cached kernel would print no ptxas log
        knobs.nvidia.dump_ptxas_log = True
        with contextlib.redirect_stdout(log):
            kernel = function.preload(data)
    return TritonBuild(
        name=kernel.metadata.name,
        source=source,
        cubin=kernel.asm["cubin"],
        ptxas_log=log.getvalue(),
        shared_bytes=kernel.metadata.shared,
        num_warps=kernel.metadata.num_warps,
        num_stages=kernel.metadata.num_stages,
    )


def ours(kernel: SuiteKernel, args: list, launch: dict | None = None) -> TritonBuild:
    """Our Triton form of `kernel` as a launch on `args` at GPU block sizes compiles it;
    `launch`: other `num_warps` and `num_stages` than the artifact's."""
    entry, call = bench_settings(kernel, "triton")
    artifact, bindings = launched(build(entry, "triton", "cuda"), args, call)
    function = getattr(load_module(artifact.source, "jit"), artifact.kernel_name)
    options = {"num_warps": artifact.num_warps, "num_stages": artifact.num_stages, **(launch or {})}
    with _intercepted() as launches:
        function[(1,)](*_values(artifact, bindings), **{k: v for k, v in options.items() if v})
    return _compiled(launches, artifact.source)


def _values(artifact, bindings: dict) -> list:
    """The kernel's arguments as the runtime passes them: a buffer the kernel never touches as an
    empty tensor, one it takes as another dtype of the same width viewed as that."""
    values = []
    for name, _ in artifact.args:
        value = bindings[name]
        if name in artifact.unused_buffers:
            value = value.new_empty(0)
        elif name in artifact.buffer_views:
            as_torch = {ir: dtype for dtype, ir in TORCH_DTYPES.items()}
            value = value.view(as_torch[artifact.arg_dtypes[name]])
        values.append(value)
    return values


def ninetoothed(kernel: SuiteKernel, args: list) -> TritonBuild:
    """NineToothed 0.26's own kernel for the same program, as its handle launches it on `args`."""
    import ninetoothed as library

    entry, call = bench_settings(kernel, None)
    program = load_program(kernel.path, library)
    arrangement = bound_arrangement(program.arrangement, entry.arrangement_kwargs)
    with _intercepted() as launches:
        handle = library.make(arrangement, program.application, program.tensors)
        handle(*args, **call)
    return _compiled(launches, Path(handle._source).read_text())


def interpreting() -> bool:
    """Whether Triton interprets in this process, where nothing here can compile."""
    return bool(knobs.runtime.interpret)
