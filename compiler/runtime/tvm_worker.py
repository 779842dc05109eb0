"""The TVM backend's worker: builds and runs TVMScript kernels with apache-tvm 0.27.

It runs in its own interpreter (`.venv-tvm`, see `tvm_launcher.py`), because TVM 0.27's
apache-tvm-ffi cannot share an environment with TileLang's bundled TVM. So this file imports
nothing from the compiler (whose package imports torch) and only the standard library, numpy and
tvm here. Run it as a file: `.venv-tvm/bin/python -P compiler/runtime/tvm_worker.py`.

Protocol: one JSON request per line on stdin, one JSON reply per line on the original stdout
(fd 1 is pointed at stderr, so whatever TVM or nvcc print cannot corrupt a reply). A reply is
`{"ok": true, ...}` or `{"ok": false, "error": "<stage>: <message>"}`. Requests:

- `run`: build (or load) `library` from the kernel `kernel` of the TVMScript file `source`, for
  `device` ("cpu" or "cuda" with `arch`), then call it. Tensors live in `arena`, a file of
  `arena_bytes` bytes shared with the launcher; each of `args` is `["buffer", byte offset, element
  count, dtype]` (a 1-D view of the arena) or `["scalar", number, null, null]`.
- `object`: compile the kernel `kernel` of `source` for the CPU (LLVM) and write its object file
  to `path`: the packed function `__tvm_ffi_<kernel>`, for an ahead-of-time library to link.
- `cuda_sources`: lower each of `kernels` (`[source, kernel]` pairs) for CUDA `arch` and compile
  its CUDA C with nvcc (a cubin); reply `results`: per kernel `{"cuda": source}` or
  `{"error": message}`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType


class StageError(Exception):
    """A failure at one stage (parse, compile, run); the message names the stage."""


def main() -> None:
    # Imported here: the compiler's tests import every module in .venv, which has no TVM 0.27.
    global np, tvm, tvm_ffi, sealed
    import numpy as np
    import tvm
    import tvm_ffi

    # By its path: `-P` keeps this folder off sys.path, and the package imports torch.
    path = Path(__file__).with_name("sealed.py")
    spec = importlib.util.spec_from_file_location("ntc_sealed", path)
    sealed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sealed)

    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    worker = Worker()
    for line in sys.stdin:
        try:
            reply = {"ok": True, **worker.handle(json.loads(line))}
        except StageError as error:
            reply = {"ok": False, "error": str(error)}
        except Exception:  # a fault of the worker itself: keep serving, report it in full
            reply = {"ok": False, "error": f"worker: {traceback.format_exc()}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


class Worker:
    def __init__(self) -> None:
        self.libraries: dict[str, tvm.runtime.Module] = {}  # library path -> loaded module
        self.functions: dict[str, dict] = {}  # source path -> its module's globals

    def handle(self, request: dict) -> dict:
        if request["op"] == "run":
            self.run(request)
            return {}
        if request["op"] == "cuda_sources":
            return {"results": self.cuda_sources(request)}
        if request["op"] == "object":
            executable = self.compile(request, target_for({"device": "cpu"}))
            executable.mod.write_to_file(request["path"])
            return {}
        raise StageError(f"protocol: unknown request {request['op']!r}")

    def prim_func(self, source: str, kernel: str) -> tvm.tirx.PrimFunc:
        """The kernel's PrimFunc: importing the file runs `@T.prim_func`, which parses it."""
        if source not in self.functions:
            spec = importlib.util.spec_from_file_location(f"ntc_tvm_{Path(source).stem}", source)
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
            except Exception as error:  # TVMScript's diagnostics carry file:line and a caret
                raise StageError(f"TVMScript parse: {error}") from None
            self.functions[source] = vars(module)
        function = self.functions[source].get(kernel)
        if not isinstance(function, tvm.tirx.PrimFunc):
            raise StageError(f"TVMScript parse: {source} defines no @T.prim_func named {kernel}")
        return function

    def compile(self, request: dict, target: tvm.target.Target) -> tvm.runtime.Executable:
        function = self.prim_func(request["source"], request["kernel"])
        try:
            return tvm.compile(function, target=target)
        except Exception as error:
            raise StageError(f"compile for {target.kind.name}: {error}") from None

    def library(self, request: dict) -> tvm.runtime.Module:
        """The built kernel, from this process, else the disk cache, else compiled and cached."""
        path = request["library"]
        if path in self.libraries:
            return self.libraries[path]
        target = target_for(request)
        if not sealed.intact(path):  # not built yet, or damaged since
            if tvm.support.cc.get_cc() is None:  # TVM would fail on a None path
                raise StageError(
                    "link: no C/C++ compiler (g++, gcc, clang, cc) on PATH; install g++ or set "
                    "$CXX to one (TVM links each kernel into a shared library)"
                )
            executable = self.compile(request, target)
            temporary = f"{path}.{os.getpid()}.tmp.so"
            executable.export_library(temporary)
            sealed.replace_sealed(temporary, path)  # atomic: a reader sees all or nothing
        with target:  # a CUDA module is compiled (nvcc) as it loads, for the current target
            self.libraries[path] = tvm.runtime.load_module(path)
        return self.libraries[path]

    def run(self, request: dict) -> None:
        kernel = self.library(request)[request["kernel"]]
        host = np.memmap(request["arena"], np.uint8, "r+", shape=(request["arena_bytes"],))
        on_gpu = request["device"] == "cuda"
        device = tvm.cuda(request["device_index"]) if on_gpu else None
        # The arena's own memory on the CPU; on a GPU, a device copy of it.
        arena = tvm_ffi.from_dlpack(host)
        if on_gpu:
            arena = tvm.runtime.empty(host.shape, "uint8", device)
            arena.copyfrom(host)
        args = []
        for kind, value_or_offset, count, dtype in request["args"]:
            if kind == "buffer":
                view = arena._create_view((count,), dtype, relative_byte_offset=value_or_offset)
                args.append(view)
            else:
                args.append(value_or_offset)
        try:
            kernel(*args)
            if on_gpu:
                device.sync()
        except Exception as error:
            raise StageError(f"run: {error}") from None
        if on_gpu:
            host[:] = arena.numpy()
        host.flush()

    def cuda_sources(self, request: dict) -> list[dict]:
        """Each kernel's CUDA C, or why it failed; nvcc runs in threads while TVM goes on."""
        target = target_for({**request, "device": "cuda"})
        jobs = []
        with ThreadPoolExecutor(os.cpu_count()) as pool:
            for source, kernel in request["kernels"]:
                try:
                    executable = self.compile({"source": source, "kernel": kernel}, target)
                except StageError as error:
                    jobs.append({"error": str(error)})
                    continue
                if not executable.mod.imports:
                    message = (
                        "no device code: bind the program loop to blockIdx.x (T.thread_binding)"
                    )
                    jobs.append({"error": f"compile for cuda: {message}"})
                    continue
                code = executable.mod.imports[0].inspect_source()
                jobs.append(pool.submit(check_cuda, code, target, request["arch"]))
        return [job if isinstance(job, dict) else job.result() for job in jobs]


def check_cuda(code: str, target: tvm.target.Target, arch: str) -> dict:
    """`{"cuda": code}` once nvcc compiled it to a cubin for `arch`, else `{"error": ...}`."""
    try:
        with target:
            nvcc().compile_cuda(code, "cubin", arch=arch, compiler="nvcc")
    except Exception as error:
        return {"error": f"nvcc: {error}"}
    return {"cuda": code}


def target_for(request: dict) -> tvm.target.Target:
    if request["device"] == "cpu":
        return tvm.target.Target({"kind": "llvm"})
    nvcc()
    return tvm.target.Target({"kind": "cuda", "arch": request["arch"]}, host={"kind": "llvm"})


def nvcc() -> ModuleType:
    """TVM's nvcc driver, registered as the compiler TVM calls when it loads a CUDA module (its
    default, nvrtc, would need the cuda-bindings package)."""
    os.environ.setdefault("TVM_CUDA_COMPILE_MODE", "nvcc")
    return importlib.import_module("tvm.support.nvcc")


if __name__ == "__main__":
    main()
