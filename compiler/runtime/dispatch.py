"""`launch`: run an artifact with its backend's launcher, `compiler/runtime/<backend>_launcher.py`
(a backend without one cannot run yet; nothing here names a backend)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import TORCH_DTYPES, LaunchError
from compiler.runtime.coverage import covering
from compiler.runtime.index_width import fitting
from compiler.runtime.overlap import warn_overlaps
from compiler.runtime.specialization import specialized

IR_TO_TORCH = {ir: torch_dtype for torch_dtype, ir in TORCH_DTYPES.items()}


def launch(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    """Run the artifact's kernel once over its grid.

    `bindings`: argument name -> torch tensor (buffer) or Python number (index or scalar). Names the
    kernel does not take are ignored; they may still appear in the grid expression.
    """
    name = f"compiler.runtime.{artifact.backend}_launcher"
    try:
        launcher = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        raise LaunchError(
            f"no launcher for backend {artifact.backend!r}; add {name.replace('.', '/')}.py"
        ) from None
    warn_overlaps(artifact, bindings)
    artifact = specialized(fitting(covering(artifact, bindings), bindings), bindings)
    launcher.launch(artifact, prepared(artifact, bindings))


def prepared(artifact: Artifact, bindings: Mapping[str, object]) -> Mapping[str, object]:
    """Tensors of the buffers the kernel takes as another type of the same width, viewed as it;
    for a buffer the kernel never touches, an empty tensor on the kernel's device."""
    for name in artifact.constexpr_params:
        value = bindings.get(name)
        if isinstance(value, int) and (value < 1 or value & (value - 1)):
            raise LaunchError(
                f"@{artifact.kernel_name} keeps {name} a compile-time parameter that sizes its "
                f"tiles, which must be a power of two, got {value}; compile with -D {name}="
                f"{value} instead (the compiler pads a given size and masks the rest)"
            )
    if not artifact.buffer_views and not artifact.unused_buffers:
        return bindings
    bindings = dict(bindings)
    for name in artifact.unused_buffers:
        tensor = bindings.get(name)
        if isinstance(tensor, torch.Tensor):
            bindings[name] = torch.empty(0, dtype=tensor.dtype, device=artifact.device)
    for name, dtype in artifact.buffer_views.items():
        tensor = bindings.get(name)
        if isinstance(tensor, torch.Tensor):
            if TORCH_DTYPES.get(tensor.dtype) != dtype:
                raise LaunchError(
                    f"@{artifact.kernel_name} argument {name!r} needs {dtype} elements, got "
                    f"{tensor.dtype}; convert it"
                )
            bindings[name] = tensor.view(IR_TO_TORCH[artifact.arg_dtypes[name]])
    return bindings
