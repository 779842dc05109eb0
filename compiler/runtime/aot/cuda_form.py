"""CUDA C++ ahead of time: one self-contained `.cu`, the kernel with the header it was emitted for
inlined in front (the CPU shim for caller "cpu", the device prelude for "cuda") and the launch
entry the Python launcher uses (`compiler/runtime/cuda_build.py`), kept private to the file."""

from __future__ import annotations

from compiler.backends.artifact import Artifact
from compiler.runtime.aot.launch import Argument
from compiler.runtime.cuda_build import HEADERS, SHIM_DIR, launch_entry, library_command
from compiler.runtime.cuda_launcher import threads_per_block

SUFFIX = {"cpu": ".cu", "cuda": ".cu"}


def source(artifact: Artifact) -> str:
    shim = (SHIM_DIR / HEADERS[artifact.device]).read_text()
    entry = launch_entry(artifact.device, artifact.kernel_name, "ntc_launch", "static")
    return f"{shim}\n{artifact.source}\n{entry}"


def call(artifact: Artifact, held: list[Argument]) -> str:
    threads = threads_per_block(artifact)
    pointers = ", ".join(f"&{a.local}" for a in held)
    return (
        f"void* ntc_args[] = {{{pointers}}};\n"
        f"return ntc_launch((unsigned)ntc_grid, {threads}, stream, ntc_args);"
    )


def command(artifact: Artifact) -> list[str]:
    return library_command(artifact.device)
