"""Runs a CUDA C++ artifact on torch tensors: on the CPU through the host shim (one thread per
block), or compiled by nvcc for a CUDA GPU, whichever device the artifact was lowered for.

Both libraries export the same entry (see `cuda_build.py`), which takes one pointer per kernel
argument: a buffer is the tensor's data pointer (its storage at the storage offset; the kernel
indexes it with the stride arguments, so any layout works), an index is an `int` or a `long long`
(the artifact's `index_bits`), a scalar has its dtype's width (f16/bf16 scalars as their 16 bits).
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import LaunchError, check_bindings, grid_size
from compiler.runtime.cuda_build import build_library

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


def launch(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    """Run the artifact's kernel once over its grid (see `compiler.runtime.dispatch.launch`)."""
    check_bindings(artifact, bindings, artifact.device)
    grid = grid_size(artifact, bindings)
    if grid == 0:
        return  # CUDA refuses an empty grid; there is nothing to run
    entry = _library(artifact).ntc_launch
    values = [
        _argument(artifact.arg_dtypes[name], kind, bindings[name], artifact.index_bits)
        for name, kind in artifact.args
    ]
    pointers = (ctypes.c_void_p * len(values))(*(ctypes.addressof(v) for v in values))
    threads = artifact.num_warps * 32 if artifact.num_warps else THREADS_PER_BLOCK
    if artifact.device == "cuda":
        device = _device(artifact, bindings)
        with torch.cuda.device(device):
            stream = torch.cuda.current_stream(device).cuda_stream
            code = entry(grid, threads, ctypes.c_void_p(stream), pointers)
    else:
        code = entry(grid, threads, None, pointers)
    if code != 0:
        error = _library(artifact).ntc_error(code).decode()
        raise LaunchError(
            f"@{artifact.kernel_name}: the launch of {grid} blocks x {threads} threads failed: "
            f"{error}; check the grid and num_warps (at most 32 warps per block)"
        )


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


def _argument(dtype: str, kind: str, value: object, index_bits: int) -> ctypes._SimpleCData:
    """The argument as the kernel's parameter type lays it out in memory."""
    if kind == "buffer":
        return ctypes.c_void_p(value.data_ptr())
    if dtype == "index":
        return _INDEX[index_bits](value)
    if dtype in _HALVES:
        bits = torch.tensor(value, dtype=_HALVES[dtype]).view(torch.int16).item()
        return ctypes.c_uint16(bits & 0xFFFF)
    return _SCALARS[dtype](value)


def _device(artifact: Artifact, bindings: Mapping[str, object]) -> torch.device:
    """The GPU the buffers live on (all on one, as a kernel launch needs)."""
    devices = {bindings[name].device for name, kind in artifact.args if kind == "buffer"}
    if len(devices) > 1:
        names = ", ".join(sorted(str(d) for d in devices))
        raise LaunchError(
            f"@{artifact.kernel_name}: buffers are on several GPUs ({names}); move them to one"
        )
    return devices.pop() if devices else torch.device("cuda", torch.cuda.current_device())
