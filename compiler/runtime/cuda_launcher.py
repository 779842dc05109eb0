"""Runs a CUDA C++ artifact on torch tensors: on the CPU through the host shim (one thread per
block), or compiled by nvcc for a CUDA GPU, whichever device the artifact was lowered for.

Both libraries export the same entry (see `cuda_build.py`), which takes one pointer per kernel
argument: a buffer is the tensor's data pointer (its storage at the storage offset; the kernel
indexes it with the stride arguments, so any layout works), an index is an `int` or a `long long`
(the artifact's `index_bits`), a scalar has its dtype's width (f16/bf16 scalars as their 16 bits).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Mapping, Sequence

import torch

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import LaunchError, check_bindings, grid_size
from compiler.runtime.cuda_build import build_library
from compiler.runtime.plan import Runner

THREADS_PER_BLOCK = 128  # when the artifact records no num_warps

_SCALARS = {
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "u8": ctypes.c_uint8,
    "u16": ctypes.c_uint16,
    "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}
_INDEX = {32: ctypes.c_int32, 64: ctypes.c_int64}
_HALVES = {"f16": torch.float16, "bf16": torch.bfloat16}

_LIBRARIES: dict[tuple[str, str], ctypes.CDLL] = {}  # (source, device) -> the loaded library


def prepare(artifact: Artifact, bindings: Mapping[str, object]) -> Runner:
    """The kernel's entry with its grid, block and index arguments fixed for calls like `bindings`
    (see `compiler.runtime.plan`); each run packs the buffers' pointers and the scalars."""
    check_bindings(artifact, bindings, artifact.device)
    grid = grid_size(artifact, bindings)
    if grid == 0:
        return _nothing  # CUDA refuses an empty grid; there is nothing to run
    library = _library(artifact)
    entry = library.ntc_launch
    threads = threads_per_block(artifact)
    # Index arguments are the plan's own: packed once. Buffers and scalars are packed per run.
    packers = [
        _packer(artifact.arg_dtypes[name], kind, artifact.index_bits, bindings[name])
        for name, kind in artifact.args
    ]
    pointer_array = ctypes.c_void_p * len(packers)
    on_gpu = artifact.device == "cuda"
    device = _device(artifact, bindings) if on_gpu else None

    def run(values: Sequence[object]) -> None:
        packed = [pack(value) for pack, value in zip(packers, values, strict=True)]
        pointers = pointer_array(*map(ctypes.addressof, packed))
        if on_gpu:
            with torch.cuda.device(device):
                stream = torch.cuda.current_stream(device).cuda_stream
                code = entry(grid, threads, ctypes.c_void_p(stream), pointers)
        else:
            code = entry(grid, threads, None, pointers)
        if code != 0:
            raise LaunchError(
                f"@{artifact.kernel_name}: the launch of {grid} blocks x {threads} threads "
                f"failed: {library.ntc_error(code).decode()}; check the grid and num_warps (at "
                "most 32 warps per block)"
            )

    return run


def _nothing(values: Sequence[object]) -> None:
    pass


def _library(artifact: Artifact) -> ctypes.CDLL:
    key = (artifact.source, artifact.device)
    if key not in _LIBRARIES:
        path = build_library(artifact.source, artifact.kernel_name, artifact.device)
        library = ctypes.CDLL(str(path))
        library.ntc_launch.argtypes = [
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_void_p),
        ]
        library.ntc_launch.restype = ctypes.c_int
        library.ntc_error.argtypes = [ctypes.c_int]
        library.ntc_error.restype = ctypes.c_char_p
        _LIBRARIES[key] = library
    return _LIBRARIES[key]


def _packer(dtype: str, kind: str, index_bits: int, value: object) -> Callable:
    """value -> the argument as the kernel's parameter type lays it out in memory; an index
    argument is packed once, from `value` (a plan runs with its own sizes and strides)."""
    if kind == "buffer":
        return lambda tensor: ctypes.c_void_p(tensor.data_ptr())
    if dtype == "index":
        packed = _INDEX[index_bits](value)
        return lambda _: packed
    return scalar_cell(dtype)


def scalar_cell(dtype: str) -> Callable:
    """value -> a scalar of `dtype` as a kernel parameter lays it out (halves as their 16 bits)."""
    if dtype in _HALVES:
        return functools.partial(_half, _HALVES[dtype])
    return _SCALARS[dtype]


def threads_per_block(artifact: Artifact) -> int:
    """The block's threads: the artifact's warps, else THREADS_PER_BLOCK."""
    return artifact.num_warps * 32 if artifact.num_warps else THREADS_PER_BLOCK


def _half(dtype: torch.dtype, value: float) -> ctypes.c_uint16:
    bits = torch.tensor(value, dtype=dtype).view(torch.int16).item()
    return ctypes.c_uint16(bits & 0xFFFF)


def _device(artifact: Artifact, bindings: Mapping[str, object]) -> torch.device:
    """The GPU the buffers live on (all on one, as a kernel launch needs)."""
    devices = {bindings[name].device for name, kind in artifact.args if kind == "buffer"}
    if len(devices) > 1:
        names = ", ".join(sorted(str(d) for d in devices))
        raise LaunchError(
            f"@{artifact.kernel_name}: buffers are on several GPUs ({names}); move them to one"
        )
    return devices.pop() if devices else torch.device("cuda", torch.cuda.current_device())
