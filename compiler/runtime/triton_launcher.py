"""Runs a Triton artifact on torch tensors: compiled on a CUDA GPU, else in Triton's interpreter
(see `triton_mode.py` for how the interpreter is switched on)."""

from __future__ import annotations

from collections.abc import Mapping

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import check_bindings, grid_size
from compiler.runtime.cache import load_module
from compiler.runtime.triton_mode import interpreting


def launch(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    """Run the artifact's kernel once over its grid (see `compiler.runtime.dispatch.launch`)."""
    interpret = interpreting()
    check_bindings(artifact, bindings, "cpu" if interpret else "cuda")
    args = [bindings[name] for name, _ in artifact.args]
    grid = grid_size(artifact, bindings)
    if grid == 0:
        return
    module = load_module(artifact.source, "interpret" if interpret else "jit")
    kernel = getattr(module, artifact.kernel_name)
    options = {"num_warps": artifact.num_warps, "num_stages": artifact.num_stages}
    kernel[(grid,)](*args, **{k: v for k, v in options.items() if v is not None})
