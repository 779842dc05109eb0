"""Compiles a Triton artifact for a GPU architecture, on any machine (no GPU needed).

The interpreter accepts programs the compiler rejects (a loop-carried variable that changes type, a
constexpr where a tensor is needed); compiling through Triton's real pipeline down to the GPU binary
checks the emitted source the way a GPU launch would, on a CPU-only machine. Run it in a process
where Triton is not interpreting (`TRITON_INTERPRET` unset when triton is first imported, and no
launch on the CPU before): Triton's own library functions are then compiled ones.
"""

from __future__ import annotations

from collections.abc import Mapping

import triton
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

from compiler.backends.artifact import Artifact
from compiler.runtime.cache import load_module

_SIGNATURE_DTYPES = {
    "i1": "i1",
    **{d: d for d in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")},
    **{"f16": "fp16", "bf16": "bf16", "f32": "fp32", "f64": "fp64"},
}


def compile_for_gpu(
    artifact: Artifact, *, arch: int = 90, constants: Mapping[str, int] | None = None
) -> dict[str, object]:
    """Compile for CUDA compute capability `arch`; the result maps each stage to its text/binary,
    and "metadata" to what a launch needs (the kernel's name, shared memory, scratch sizes).

    `constants`: arguments Triton's launcher would specialise as constexprs (ints equal to 1).
    """
    if knobs.runtime.interpret:
        raise RuntimeError(
            "Triton is interpreting in this process; compile in a fresh process with "
            "TRITON_INTERPRET unset"
        )
    kernel = getattr(load_module(artifact.source, "jit"), artifact.kernel_name)
    constants = dict(constants or {})
    signature = {
        name: "constexpr"
        if name in constants
        else ("*" if kind == "buffer" else "") + _signature_dtype(artifact, name)
        for name, kind in artifact.args
    }
    positions = {name: (i,) for i, (name, _) in enumerate(artifact.args)}
    options = {"num_warps": artifact.num_warps, "num_stages": artifact.num_stages}
    compiled = triton.compile(
        ASTSource(kernel, signature, {positions[k]: v for k, v in constants.items()}),
        target=GPUTarget("cuda", arch, 32),
        options={k: v for k, v in options.items() if v is not None},
    )
    metadata = compiled.metadata
    launch = {"name": metadata.name, "shared": metadata.shared}
    launch |= {"scratch": getattr(metadata, "global_scratch_size", 0)}
    launch |= {"profile_scratch": getattr(metadata, "profile_scratch_size", 0)}
    return {**compiled.asm, "metadata": launch}


def _signature_dtype(artifact: Artifact, name: str) -> str:
    """The argument's type in Triton's signature: an index argument in the artifact's width."""
    dtype = artifact.arg_dtypes[name]
    return f"i{artifact.index_bits}" if dtype == "index" else _SIGNATURE_DTYPES[dtype]
