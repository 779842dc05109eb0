"""Triton ahead of time, for a CUDA GPU: the kernel compiled by Triton for sm_90 (no GPU needed to
compile), its cubin embedded in a C++ file that loads it through the CUDA driver once per context
and launches it as Triton's own launcher does (its arguments, then the global and profile scratch
pointers; `num_warps` * 32 threads; the shared memory Triton reports). The driver is opened at the
first launch (`libcuda.so.1`), so the library builds and loads on any machine; without a driver a
launch returns an error that says so. Triton runs on the CPU only as an interpreter, so there is no
CPU form: for caller "cpu", compile with backend "cuda"."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from compiler.backends.artifact import Artifact
from compiler.errors import CompileError
from compiler.runtime.aot.launch import C_DIR, NO_DRIVER, Argument
from compiler.runtime.cuda_build import library_command
from compiler.runtime.cuda_launcher import threads_per_block

SUFFIX = {"cuda": ".cpp"}
ARCH = 90
ROOT = Path(__file__).resolve().parents[2]  # where `compiler` is imported from

_COMPILE = """
import pickle, re, sys
from compiler.runtime.triton_aot import compile_for_gpu
artifact = pickle.load(sys.stdin.buffer)
asm = compile_for_gpu(artifact, arch=int(sys.argv[1]))
entry = re.search(r"\\.entry\\s+\\w+\\((.*?)\\)", asm["ptx"], re.S).group(1)
params = entry.count(".param")
sys.stdout.buffer.write(pickle.dumps({"cubin": asm["cubin"], "params": params, **asm["metadata"]}))
"""


def source(artifact: Artifact) -> str:
    compiled = _compiled(artifact)
    data = ", ".join(str(byte) for byte in compiled["cubin"])
    return (
        f"#define NTC_NO_DRIVER {NO_DRIVER}\n"
        f'#define NTC_KERNEL_NAME "{compiled["name"]}"\n'
        f"#define NTC_SHARED {compiled['shared']}\n"
        f"static const unsigned char ntc_cubin[] = {{{data}}};\n"
        f"{(C_DIR / 'ntc_triton_driver.h').read_text()}"
    )


def call(artifact: Artifact, held: list[Argument]) -> str:
    threads = threads_per_block(artifact)
    shared = _compiled(artifact)["shared"]
    pointers = ", ".join([f"&{a.local}" for a in held] + ["&ntc_scratch", "&ntc_profile"])
    return (
        "CUdeviceptr ntc_scratch = 0, ntc_profile = 0;\n"
        f"void* ntc_args[] = {{{pointers}}};\n"
        "ntc_driver* ntc_cu;\n"
        "CUfunction ntc_kernel;\n"
        "CUresult ntc_found = ntc_function(&ntc_cu, &ntc_kernel);\n"
        "if (ntc_found != CUDA_SUCCESS) return (int)ntc_found;\n"
        f"return (int)ntc_cu->launch_kernel(ntc_kernel, (unsigned)ntc_grid, 1, 1, {threads}, 1, 1, "
        f"{shared}, (CUstream)stream, ntc_args, NULL);"
    )


def command(artifact: Artifact) -> list[str]:
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    return [*library_command("cpu"), f"-I{home}/include", "-ldl"]


_COMPILED: dict[str, dict] = {}


def _compiled(artifact: Artifact) -> dict:
    """The cubin and what launching it needs, from Triton in a process of its own (this one may
    be interpreting Triton)."""
    if artifact.source not in _COMPILED:
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        done = subprocess.run(
            [sys.executable, "-c", _COMPILE, str(ARCH)],
            input=pickle.dumps(artifact),
            capture_output=True,
            env=env,
        )
        if done.returncode != 0:
            raise CompileError(
                f"@{artifact.kernel_name}: Triton could not compile it for sm_{ARCH}:\n"
                f"{done.stderr.decode()[-2000:]}"
            )
        compiled = pickle.loads(done.stdout)
        if compiled["params"] != len(artifact.args) + 2:
            raise CompileError(
                f"@{artifact.kernel_name}: Triton's sm_{ARCH} kernel takes {compiled['params']} "
                f"parameters, and the launch passes {len(artifact.args)} arguments and the two "
                "scratch pointers; Triton's launch convention changed (compiler/runtime/aot/)"
            )
        if compiled["scratch"] or compiled["profile_scratch"]:
            raise CompileError(
                f"@{artifact.kernel_name}: Triton's sm_{ARCH} kernel needs global scratch memory, "
                "which an ahead-of-time launch does not allocate; compile it with backend 'cuda'"
            )
        _COMPILED[artifact.source] = compiled
    return _COMPILED[artifact.source]
