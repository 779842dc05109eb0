"""Runs a TVM artifact (TVMScript TIR) on torch tensors, through a worker process.

The backend uses apache-tvm 0.27, whose apache-tvm-ffi cannot share `.venv` with TileLang's bundled
TVM, so kernels are built and run by `tvm_worker.py` in a second interpreter: `.venv-tvm` (made by
`make install`), or `$NTC_TVM_PYTHON`. One worker per process, started on the first launch, reused,
and stopped at exit. Tensors cross in an "arena", a file in shared memory both processes map: each
tensor's storage span (from the lowest to the highest element any bound tensor on that storage
reaches) is copied in once, the kernel works on views of it, and the spans are copied back, so
strided, offset and aliasing tensors all behave as they do in memory. Builds are cached on disk
(`<cache dir>/<sha256 of the source>.<target>.so`) by the worker.
"""

from __future__ import annotations

import atexit
import json
import mmap
import os
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import check_bindings, grid_size
from compiler.runtime.cache import cache_dir, source_file
from compiler.runtime.plan import Runner

PYTHON_VARIABLE = "NTC_TVM_PYTHON"
DEFAULT_PYTHON = Path(__file__).resolve().parents[2] / ".venv-tvm" / "bin" / "python"
WORKER_FILE = Path(__file__).with_name("tvm_worker.py")
ALIGNMENT = 64  # bytes between arena regions: TVM's own allocation alignment
# Variables that would point the worker at another Python or TVM: TileLang exports PYTHONPATH and
# TVM_LIBRARY_PATH for its bundled TVM when it is imported.
FOREIGN_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "TVM_HOME", "TVM_LIBRARY_PATH")


class TVMError(RuntimeError):
    """The TVM worker could not parse, compile or run a kernel, or could not start."""


def prepare(artifact: Artifact, bindings: Mapping[str, object]) -> Runner:
    """A request to the worker, for calls like `bindings` (see `compiler.runtime.plan`): each run
    copies the tensors into a fresh arena, has the worker run the kernel there, and copies them
    back (the floor of a TVM launch here: a round trip to another process)."""
    check_bindings(artifact, bindings, artifact.device)
    if grid_size(artifact, bindings) == 0:
        return lambda values: None
    request = {"op": "run", "kernel": artifact.kernel_name, "device": artifact.device}
    target = "llvm"
    if artifact.device == "cuda":
        first = next(bindings[name] for name, kind in artifact.args if kind == "buffer")
        index = first.device.index or 0
        major, minor = torch.cuda.get_device_capability(index)
        target = f"sm_{major}{minor}"
        request |= {"device_index": index, "arch": target}
    source = source_file(artifact.source)
    request |= {"source": str(source), "library": str(cache_dir() / f"{source.stem}.{target}.so")}
    where = f"TVM kernel @{artifact.kernel_name} ({source})"
    kinds = [kind for _, kind in artifact.args]
    # TVM's calls take a 64-bit signed int: a u64 argument from 2^63 goes as its bits.
    unsigned = [artifact.arg_dtypes[name] == "u64" for name, _ in artifact.args]

    def run(values: Sequence[object]) -> None:
        arena = _Arena([v for v, kind in zip(values, kinds, strict=True) if kind == "buffer"])
        try:
            args = [
                ["buffer", *arena.place(v)]
                if kind == "buffer"
                else ["scalar", v - 2**64 if wraps and v >= 2**63 else v, None, None]
                for v, kind, wraps in zip(values, kinds, unsigned, strict=True)
            ]
            message = request | {"args": args, "arena": arena.path, "arena_bytes": arena.size}
            _worker().request(message, where)
            arena.copy_back()
        finally:
            arena.release()

    return run


def cuda_source(artifact: Artifact, arch: str = "sm_90") -> str:
    """The CUDA C that TVM generates from the artifact, after nvcc compiled it for `arch` (no GPU
    needed): the check that the CUDA form of a kernel builds."""
    return cuda_sources([artifact], arch)[0]


def object_file(artifact: Artifact, path: Path) -> Path:
    """The CPU artifact compiled by TVM (LLVM) into the object file `path`, which defines the
    packed function `__tvm_ffi_<kernel>` (TVM FFI's calling convention)."""
    source = source_file(artifact.source)
    request = {"op": "object", "source": str(source), "kernel": artifact.kernel_name}
    _worker().request(request | {"path": str(path)}, f"TVM kernel @{artifact.kernel_name}")
    return path


def cuda_sources(artifacts: list[Artifact], arch: str = "sm_90") -> list[str]:
    """`cuda_source` of each artifact, in one request: the worker overlaps TVM and nvcc. Raises a
    TVMError naming every kernel that does not build."""
    sources = [str(source_file(a.source)) for a in artifacts]
    kernels = [[s, a.kernel_name] for s, a in zip(sources, artifacts, strict=True)]
    reply = _worker().request(
        {"op": "cuda_sources", "kernels": kernels, "arch": arch}, "CUDA forms"
    )
    failures = [
        f"TVM kernel @{a.kernel_name} ({s}): {result['error']}"
        for a, s, result in zip(artifacts, sources, reply["results"], strict=True)
        if "error" in result
    ]
    if failures:
        raise TVMError("\n".join(failures))
    return [result["cuda"] for result in reply["results"]]


class _Arena:
    """Shared memory holding every bound tensor's storage span, in regions 64-byte aligned."""

    def __init__(self, tensors: list[torch.Tensor]):
        spans: dict[tuple, list[int]] = {}  # storage -> [lowest byte, end byte] used
        for tensor in tensors:
            start, end = _span(tensor)
            low_high = spans.setdefault(_storage_key(tensor), [start, end])
            low_high[:] = min(low_high[0], start), max(low_high[1], end)
        self.regions: dict[tuple, tuple[int, int, int]] = {}  # storage -> (offset, low, high)
        size = 0
        for key, (low, high) in spans.items():
            self.regions[key] = (size, low, high)
            size += -(-(high - low) // ALIGNMENT) * ALIGNMENT
        self.size = max(size, ALIGNMENT)
        directory = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
        descriptor, self.path = tempfile.mkstemp(prefix="ntc-tvm-", dir=directory)
        try:
            os.ftruncate(descriptor, self.size)
            self.memory = torch.frombuffer(mmap.mmap(descriptor, self.size), dtype=torch.uint8)
            self.storages = {_storage_key(t): _storage_bytes(t) for t in tensors}
            for key, (offset, low, high) in self.regions.items():
                self.memory[offset : offset + high - low].copy_(self.storages[key][low:high])
        except BaseException:
            self.release()
            raise
        finally:
            os.close(descriptor)

    def place(self, tensor: torch.Tensor) -> tuple[int, int, str]:
        """Where the worker finds `tensor`: arena byte offset, element count, TVM dtype name."""
        offset, low, _ = self.regions[_storage_key(tensor)]
        start, end = _span(tensor)
        count = (end - start) // tensor.element_size()
        return offset + start - low, count, str(tensor.dtype).removeprefix("torch.")

    def copy_back(self) -> None:
        for key, (offset, low, high) in self.regions.items():
            self.storages[key][low:high].copy_(self.memory[offset : offset + high - low])

    def release(self) -> None:
        os.unlink(self.path)  # the mapping itself goes with the last tensor viewing it


def _storage_key(tensor: torch.Tensor) -> tuple:
    return tensor.device, tensor.untyped_storage().data_ptr()


def _storage_bytes(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor's whole storage as a flat uint8 tensor (on its device)."""
    return torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(tensor.untyped_storage())


def _span(tensor: torch.Tensor) -> tuple[int, int]:
    """Bytes [start, end) of the tensor's storage its elements occupy, counted from the storage."""
    size = tensor.element_size()
    start = tensor.storage_offset() * size
    if tensor.numel() == 0:
        return start, start
    last = sum((n - 1) * stride for n, stride in zip(tensor.shape, tensor.stride(), strict=True))
    return start, start + (last + 1) * size


class _Worker:
    """One `tvm_worker.py` process: JSON requests and replies over its stdin and stdout."""

    def __init__(self, python: Path):
        self.python = python
        self.owner = os.getpid()  # a forked child must not talk over its parent's pipes
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            [str(python), "-P", str(WORKER_FILE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={k: v for k, v in os.environ.items() if k not in FOREIGN_VARIABLES},
        )

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def request(self, message: dict, where: str) -> dict:
        """The worker's reply; `where` heads the error if there is one."""
        with self.lock:
            try:
                self.process.stdin.write(json.dumps(message) + "\n")
                self.process.stdin.flush()
                line = self.process.stdout.readline()
            except BrokenPipeError:
                line = ""
            except BaseException:  # e.g. Ctrl-C while it works: its late reply would be misread
                self.process.kill()
                self.process.wait()  # gone before the next launch asks whether it is alive
                raise
        if not line:
            status = self.process.wait()
            raise TVMError(
                f"{where}: the TVM worker ({self.python}) stopped with status {status} (its "
                "messages are above, on stderr; a ModuleNotFoundError there means that Python "
                f"lacks apache-tvm: see ${PYTHON_VARIABLE}); a new worker starts on the next launch"
            )
        reply = json.loads(line)
        if not reply["ok"]:
            raise TVMError(f"{where}: {reply['error']}")
        return reply

    def close(self) -> None:
        if self.alive():
            self.process.stdin.close()  # the worker ends when its input does
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


_current: _Worker | None = None
_start_lock = threading.Lock()


def _worker() -> _Worker:
    global _current
    with _start_lock:
        if _current is None or not _current.alive():
            if _current is None:
                atexit.register(lambda: _current and _current.close())
            _current = _Worker(tvm_python())
        return _current


def tvm_python() -> Path:
    """The interpreter with apache-tvm 0.27: `$NTC_TVM_PYTHON`, else `.venv-tvm/bin/python`."""
    configured = os.environ.get(PYTHON_VARIABLE)
    python = Path(configured) if configured else DEFAULT_PYTHON
    if not (python.is_file() and os.access(python, os.X_OK)):
        where = f"${PYTHON_VARIABLE} is {configured}, which" if configured else f"{python}"
        raise TVMError(
            f"the TVM backend builds and runs kernels with apache-tvm 0.27 in its own Python, and "
            f"{where} is not an executable file; run `make install` (it creates .venv-tvm), or "
            f"set {PYTHON_VARIABLE} to a Python with apache-tvm==0.27.0.post1 and numpy"
        )
    return python
