"""Runs a TileLang artifact on torch tensors: TileLang compiles the emitted `@T.prim_func` to C for
the CPU (target "c", built by the host C++ compiler) or to CUDA for a GPU, and calls it.

A buffer is passed as a flat 1-D view of its tensor's storage from the tensor's first element on:
the kernel indexes it with explicit strides, and TileLang bounds-checks every access against the
view's extent (the symbolic `<name>_extent` of the emitted parameter). Compiled kernels are kept
per source in this process, and on disk by TileLang's own kernel cache under
`<ntc cache dir>/tilelang`, so a second run does not compile again.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass

import tilelang
import torch
from tilelang.contrib.nvcc import compile_cuda
from tilelang.jit import JITKernel
from tilelang.tools.compile_only import discover_prim_func
from tvm.target import Target

from compiler.backends.artifact import Artifact
from compiler.backends.tilelang.target import C_BUFFER_DTYPES
from compiler.runtime.bindings import LaunchError, check_bindings, grid_size
from compiler.runtime.cache import cache_dir, load_module
from compiler.runtime.plan import Runner

_TARGETS = {"cpu": "c", "cuda": "cuda"}
_KERNELS: dict[tuple[str, str], JITKernel] = {}
_CUDA_KERNELS: dict[tuple[str, str], CudaKernel] = {}


def _unexport_bundled_tvm() -> None:
    """`import tilelang` puts its bundled TVM on PYTHONPATH and TVM_LIBRARY_PATH for this process
    (it has it on `sys.path` already): child processes, such as the TVM backend's worker with a TVM
    of its own, must not inherit them."""
    package = os.path.dirname(tilelang.__file__)
    for key in ("PYTHONPATH", "TVM_LIBRARY_PATH"):
        paths = os.environ.get(key, "").split(os.pathsep)
        kept = [path for path in paths if path and not path.startswith(package)]
        if kept:
            os.environ[key] = os.pathsep.join(kept)
        else:
            os.environ.pop(key, None)


_unexport_bundled_tvm()
tilelang.env.TILELANG_PRINT_ON_COMPILATION = "0"  # no log line per compile amid ntc's own output


def prepare(artifact: Artifact, bindings: Mapping[str, object]) -> Runner:
    """The built kernel, for calls like `bindings` (see `compiler.runtime.plan`). It computes its
    grid from its own arguments; the grid here only skips empty launches."""
    check_bindings(artifact, bindings, artifact.device)
    if artifact.device == "cpu":
        _check_cpu_buffers(artifact)
    if grid_size(artifact, bindings) == 0:
        return lambda values: None
    kernel = compiled(artifact)
    kinds = [kind for _, kind in artifact.args]
    # The plan checked every binding: TileLang need not check them again on each call.
    return lambda values: kernel(*map(_argument, values, kinds), skip_tensor_validation=True)


def compiled(artifact: Artifact) -> JITKernel:
    """The artifact's kernel built for its device: once per process, once per cache dir on disk."""
    key = (artifact.device, artifact.source)
    if key not in _KERNELS:
        tilelang.env.TILELANG_CACHE_DIR = str(cache_dir() / "tilelang")
        func = _prim_func(artifact.source, artifact.kernel_name)
        _KERNELS[key] = tilelang.compile(func, target=_TARGETS[artifact.device])
        _remove_build_files(_KERNELS[key])
    return _KERNELS[key]


def _remove_build_files(kernel: JITKernel) -> None:
    """TileLang builds a fresh kernel from a `.cpp` and a `.so` in the system's temporary
    directory and leaves both there (its kernel cache keeps its own copy): one pair per kernel
    compiled would pile up. The library is loaded by now, so its file can go."""
    generator = getattr(kernel.adapter, "lib_generator", None)
    temporary = os.path.realpath(tempfile.gettempdir())
    for path in (getattr(generator, "srcpath", None), getattr(generator, "libpath", None)):
        if path and os.path.dirname(os.path.realpath(path)) == temporary:
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)


@dataclass(frozen=True)
class CudaKernel:
    """What TileLang makes of a kernel's CUDA form: the CUDA C++ (its `<name>_kernel` global
    function) and how to launch it, one block per program."""

    source: str
    threads: int
    dynamic_shared_memory: int


def cuda_source(artifact_or_source: Artifact | str, arch: str = "sm_90") -> str:
    """The CUDA C++ TileLang generates from a kernel's CUDA form (no GPU needed).

    An artifact must have been lowered for device "cuda"; a source string is searched for its
    first `@T.prim_func`.
    """
    if isinstance(artifact_or_source, str):
        func = discover_prim_func(load_module(artifact_or_source))
        return _lower_for_cuda(func, arch).source
    return cuda_kernel(artifact_or_source, arch).source


def cuda_kernel(artifact: Artifact, arch: str = "sm_90") -> CudaKernel:
    """`artifact`'s CUDA form lowered by TileLang (once per process per source and arch)."""
    if artifact.device != "cuda":
        raise ValueError(
            f"@{artifact.kernel_name} was lowered for device {artifact.device!r}; lower it "
            "for device='cuda' to get its CUDA form"
        )
    key = (artifact.source, arch)
    if key not in _CUDA_KERNELS:
        func = _prim_func(artifact.source, artifact.kernel_name)
        _CUDA_KERNELS[key] = _lower_for_cuda(func, arch)
    return _CUDA_KERNELS[key]


def _lower_for_cuda(func, arch: str) -> CudaKernel:
    target = Target({"kind": "cuda", "arch": arch})
    with tilelang.transform.PassContext(opt_level=3), target:
        lowered = tilelang.lower(func, target=target, enable_device_compile=False)
    (device_func,) = lowered.device_mod.functions.values()  # one kernel: one block per program
    attrs = device_func.attrs
    extents = {tag: str(extent) for tag, extent in dict(attrs["thread_extent"]).items()}
    others = ("threadIdx.y", "threadIdx.z", "blockIdx.y", "blockIdx.z")
    if any(extents.get(tag, "1") != "1" for tag in others) or "cluster_dims" in attrs:
        raise LaunchError(
            f"TileLang launches this kernel on {extents} (cluster dims: "
            f"{'cluster_dims' in attrs}): the compiler makes 1-D launches only, one block per "
            "program (see compiler/runtime/tilelang_launcher.py)"
        )
    threads = int(extents.get("threadIdx.x", 1))
    shared = int(attrs["dyn_shared_memory_buf"]) if "dyn_shared_memory_buf" in attrs else 0
    return CudaKernel(str(lowered.kernel_source), threads, shared)


def cuda_binary(cuda: str, arch: str = "sm_90") -> bytes:
    """`cuda` (from `cuda_source`) compiled by nvcc to a cubin for `arch`: what a GPU would load."""
    number = arch.removeprefix("sm_")
    includes = [f"-I{tilelang.env.TILELANG_TEMPLATE_PATH}", f"-I{tilelang.env.CUTLASS_INCLUDE_DIR}"]
    options = ["-std=c++20", "-w", *includes]  # TileLang's CUDA templates need C++20
    gencode = ["-gencode", f"arch=compute_{number},code=sm_{number}"]
    return bytes(compile_cuda(cuda, "cubin", arch=gencode, options=options))


def _prim_func(source: str, name: str):
    func = getattr(load_module(source), name, None)
    if func is None:
        raise LaunchError(f"the TileLang source defines no @{name}; emit it with the kernel's name")
    return func


def _check_cpu_buffers(artifact: Artifact) -> None:
    for name, kind in artifact.args:
        dtype = artifact.arg_dtypes[name]
        if kind == "buffer" and dtype not in C_BUFFER_DTYPES:
            supported = ", ".join(sorted(C_BUFFER_DTYPES))
            raise LaunchError(
                f"@{artifact.kernel_name} argument {name!r}: TileLang's C target cannot take "
                f"{dtype} buffers (only {supported}); convert the tensor and the program, or "
                "compile for device='cuda'"
            )


def _argument(value: object, kind: str) -> object:
    if kind != "buffer":
        return value
    tensor: torch.Tensor = value
    extent = tensor.untyped_storage().nbytes() // tensor.element_size() - tensor.storage_offset()
    return tensor.as_strided((extent,), (1,), tensor.storage_offset())
