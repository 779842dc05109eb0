"""Checks shared by every launcher: each kernel argument is bound, to a tensor of the right element
type on the artifact's device, or to a Python number that fits the argument's kind."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.ir.types import INT_DTYPES, integer_bounds
from compiler.runtime.grid import evaluate_grid, integer_bindings


class LaunchError(ValueError):
    """Bindings that do not fit the artifact's arguments; names the argument and what it needs."""


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
    torch.float8_e4m3fn: "f8e4m3fn",
    torch.float8_e5m2: "f8e5m2",
}


def check_bindings(artifact: Artifact, bindings: Mapping[str, object], device: str) -> None:
    """`device`: where the tensors must live ("cpu" or "cuda") for this launch."""
    for name, kind in artifact.args:
        where = f"@{artifact.kernel_name} argument {name!r}"
        if name not in bindings:
            names = ", ".join(name for name, _ in artifact.args)
            raise LaunchError(f"{where} is not bound; bind every argument: {names}")
        value, dtype = bindings[name], artifact.arg_dtypes[name]
        if kind == "buffer":
            if not isinstance(value, torch.Tensor):
                raise LaunchError(f"{where} needs a tensor of {dtype}, got {type(value).__name__}")
            if TORCH_DTYPES.get(value.dtype) != dtype:
                raise LaunchError(f"{where} needs {dtype} elements, got {value.dtype}; convert it")
            if value.device.type != device:
                raise LaunchError(
                    f"{where} is on {value.device} but this {artifact.backend} kernel runs on "
                    f"{device}; move the tensor there (or compile for device={value.device.type!r})"
                )
        elif not _fits(value, kind):
            raise LaunchError(f"{where} needs a Python {kind} number, got {value!r}")
        elif dtype in INT_DTYPES and not isinstance(value, bool):
            check_range(artifact, name, value, *integer_bounds(dtype))


def integer_numbers(artifact: Artifact) -> list[tuple[str, int, int]]:
    """(name, least, greatest) of each integer number argument (not an index: the index width
    check has those)."""
    return [
        (name, *integer_bounds(artifact.arg_dtypes[name]))
        for name, kind in artifact.args
        if kind != "buffer" and artifact.arg_dtypes[name] in INT_DTYPES
    ]


def check_range(artifact: Artifact, name: str, value: int, low: int, high: int) -> None:
    """A Python int past its argument's dtype would reach the kernel wrapped (or truncated)."""
    if not low <= value <= high:
        raise LaunchError(
            f"@{artifact.kernel_name} argument {name!r} is {value}, outside "
            f"{artifact.arg_dtypes[name]} [{low}, {high}]; pass a number in that range"
        )


def grid_size(artifact: Artifact, bindings: Mapping[str, object]) -> int:
    """The number of programs for these bindings (meta values come from the schedule)."""
    numbers = integer_bindings(bindings)
    return evaluate_grid(artifact.grid, {**artifact.schedule, **numbers})


def _fits(value: object, dtype: str) -> bool:
    if dtype == "i1":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or dtype.startswith(("f", "bf"))
