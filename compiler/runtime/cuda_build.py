"""Builds emitted CUDA C++ into a shared library (per device) or PTX, cached by content hash.

One source serves both devices. For "cpu", g++ compiles it with the host shim
(`cuda_shim/ntc_cuda_host.h`) in front; for "cuda", nvcc compiles it for sm_90 with the device
prelude (`cuda_shim/ntc_cuda_device.h`). Either library gets a host entry appended,

    extern "C" int ntc_launch(unsigned grid, unsigned threads, void* stream, void** args)

where `args[i]` points at the kernel's i-th argument (cudaLaunchKernel's convention) and the result
is 0 or a CUDA error code (`ntc_error(code)` spells it). A build's key is the sha256 of the command,
the header and the source: a changed shim or flag rebuilds, a second run loads the cached file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from compiler.runtime.cache import cache_dir, ensure_dir
from compiler.runtime.sealed import intact, replace_sealed, write_atomically

SHIM_DIR = Path(__file__).parent / "cuda_shim"
HEADERS = {"cpu": "ntc_cuda_host.h", "cuda": "ntc_cuda_device.h"}  # under SHIM_DIR
ARCH = "sm_90"

# The entry's body per device: run `{kernel}` on `grid` blocks of `threads` threads.
_LAUNCH = {
    "cpu": """{linkage} int {entry}(unsigned grid, unsigned, void*, void** args) {{
  ntc_fault = 0;
  ntc_run_grid({kernel}, grid, args);
  return ntc_fault;
}}
""",
    "cuda": """{linkage} int {entry}(unsigned grid, unsigned threads, void* stream, void** args) {{
  return (int)cudaLaunchKernel((const void*){kernel}, dim3(grid), dim3(threads), args, 0,
                               (cudaStream_t)stream);
}}
""",
}
_ERROR = {
    "cpu": """
extern "C" const char* ntc_error(int code) {
  return code == NTC_MISALIGNED ? "misaligned address" : "no error";
}
""",
    "cuda": """
extern "C" const char* ntc_error(int code) { return cudaGetErrorString((cudaError_t)code); }
""",
}


def launch_entry(device: str, kernel: str, entry: str = "ntc_launch", linkage: str = 'extern "C"'):
    """The C++ function `entry(grid, threads, stream, args)` that launches `kernel` on `device`;
    `args[i]` points at the kernel's i-th argument, the result is 0 or a CUDA error code."""
    return _LAUNCH[device].format(kernel=kernel, entry=entry, linkage=linkage)


class BuildError(RuntimeError):
    """A compiler missing or rejecting a kernel; names the kernel, the command and the fix."""


def build_library(source: str, kernel_name: str, device: str) -> Path:
    """The cached shared library holding `source` and its host entry for `device`."""
    if device not in _LAUNCH:
        raise BuildError(
            f"@{kernel_name}: no CUDA C++ build for device {device!r}; use 'cpu' or 'cuda'"
        )
    text = f"{source}\n{launch_entry(device, kernel_name)}{_ERROR[device]}"
    return _cached(kernel_name, text, library_command(device), HEADERS[device], ".so")


def library_command(device: str) -> list[str]:
    """The compiler and flags that build a shared library of CUDA C++ for `device`: g++ for the
    CPU (`-x c++`: a .cu file is plain C++ there), nvcc for sm_90."""
    if device == "cpu":
        return [_compiler("CXX", "g++"), "-O2", "-std=c++17", "-shared", "-fPIC", "-x", "c++"]
    return [_nvcc(), f"-arch={ARCH}", "-O2", "-std=c++17", "-shared", "-Xcompiler", "-fPIC"]


def compile_ptx(source: str, kernel_name: str = "kernel") -> str:
    """`source` compiled by nvcc for sm_90, as PTX text (proof the GPU form is valid CUDA)."""
    command = [_nvcc(), f"-arch={ARCH}", "-std=c++17", "--ptx"]
    ptx = _cached(kernel_name, source, command, HEADERS["cuda"], ".ptx")
    return ptx.read_text()


def _cached(kernel_name: str, text: str, command: list[str], header: str, suffix: str) -> Path:
    """What `command` makes of `text` with `header` in front, from the cache or compiled into it
    (atomically: a temporary file, then a rename)."""
    header_path = SHIM_DIR / header
    compiler = command[0]
    command = [*command, "-include", str(header_path)]
    status = header_path.stat()  # an edited header changes the key
    shim = f"{header}:{status.st_size}:{status.st_mtime_ns}"
    key = hashlib.sha256("\0".join([*command, shim, text]).encode())
    directory = cache_dir() / "cuda"
    output = directory / f"{key.hexdigest()}{suffix}"
    if intact(output):
        return output
    ensure_dir(directory)
    source_file = directory / f"{key.hexdigest()}.cu"  # kept: the file an error points into
    write_atomically(source_file, text)
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=f".tmp{suffix}")
    os.close(handle)
    try:
        run = subprocess.run(
            [*command, str(source_file), "-o", temporary],
            capture_output=True,
            text=True,
        )
        if run.returncode < 0:  # killed (out of memory, a signal): nothing wrong in the source
            raise BuildError(
                f"@{kernel_name}: {Path(compiler).name} was killed by signal {-run.returncode} "
                f"compiling {source_file}; launch again (if it recurs, check memory and {compiler})"
            )
        if run.returncode != 0:
            raise BuildError(
                f"@{kernel_name}: {Path(compiler).name} rejected {source_file} (status "
                f"{run.returncode}):\n{run.stderr.strip()}\nfix the spelling that produced the "
                "failing line (compiler/backends/cuda/target.py) or the IR before emission"
            )
        replace_sealed(temporary, output)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return output


def _compiler(variable: str, default: str) -> str:
    name = os.environ.get(variable) or default
    path = shutil.which(name)
    if path is None:
        raise BuildError(f"C++ compiler {name!r} not found; install g++ or set ${variable}")
    return path


def _nvcc() -> str:
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    path = shutil.which("nvcc") or shutil.which("nvcc", path=str(Path(home) / "bin"))
    if path is None:
        raise BuildError(
            "nvcc not found; install the CUDA toolkit and put its bin/ on PATH (or set $CUDA_HOME)"
        )
    return path
