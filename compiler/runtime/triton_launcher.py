"""Runs a Triton artifact on torch tensors: compiled on a CUDA GPU, else in Triton's interpreter
(see `triton_mode.py` for how the interpreter is switched on)."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.runtime.cache import load_module
from compiler.runtime.dispatch import LaunchError
from compiler.runtime.grid import evaluate_grid
from compiler.runtime.triton_mode import interpreting

TORCH_DTYPES = {
    torch.bool: "i1",
    torch.int8: "i8",
    torch.int16: "i16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.uint8: "u8",
    torch.uint16: "u16",
    torch.uint32: "u32",
    torch.uint64: "u64",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float32: "f32",
    torch.float64: "f64",
}


def launch(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    """Run the artifact's kernel once over its grid (see `compiler.runtime.dispatch.launch`)."""
    interpret = interpreting()
    for name, kind in artifact.args:
        _check(artifact, name, kind, bindings, interpret)
    args = [bindings[name] for name, _ in artifact.args]
    numbers = {k: v for k, v in bindings.items() if isinstance(v, int) and not isinstance(v, bool)}
    grid = evaluate_grid(artifact.grid, {**artifact.schedule, **numbers})
    if grid == 0:
        return
    module = load_module(artifact.source, "interpret" if interpret else "jit")
    kernel = getattr(module, artifact.kernel_name)
    options = {"num_warps": artifact.num_warps, "num_stages": artifact.num_stages}
    kernel[(grid,)](*args, **{k: v for k, v in options.items() if v is not None})


def _check(
    artifact: Artifact, name: str, kind: str, bindings: Mapping[str, object], interpret: bool
) -> None:
    where = f"@{artifact.kernel_name} argument {name!r}"
    if name not in bindings:
        raise LaunchError(f"{where} is not bound; bind every argument: {_names(artifact)}")
    value, dtype = bindings[name], artifact.arg_dtypes[name]
    if kind == "buffer":
        if not isinstance(value, torch.Tensor):
            raise LaunchError(f"{where} needs a tensor of {dtype}, got {type(value).__name__}")
        if TORCH_DTYPES.get(value.dtype) != dtype:
            raise LaunchError(f"{where} needs {dtype} elements, got {value.dtype}; convert it")
        if value.device.type == "cpu" and not interpret:
            raise LaunchError(f"{where} is on {value.device}; move it to the GPU (or interpret)")
    elif not _fits(value, kind):
        raise LaunchError(f"{where} needs a Python {kind} number, got {value!r}")


def _fits(value: object, dtype: str) -> bool:
    if dtype == "i1":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or dtype.startswith(("f", "bf"))


def _names(artifact: Artifact) -> str:
    return ", ".join(name for name, _ in artifact.args)
