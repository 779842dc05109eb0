"""Runs a Triton artifact on torch tensors: compiled on a CUDA GPU, else in Triton's interpreter
(see `triton_mode.py` for how the interpreter is switched on). The interpreter keeps the program
being run in globals of its own (the grid, the program id), so its launches from several threads
take turns."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import check_bindings, grid_size
from compiler.runtime.cache import load_module
from compiler.runtime.plan import Runner
from compiler.runtime.triton_mode import interpreting


def prepare(artifact: Artifact, bindings: Mapping[str, object]) -> Runner:
    """The kernel launched over its grid with its options, for calls like `bindings` (see
    `compiler.runtime.plan`)."""
    interpret = interpreting()
    check_bindings(artifact, bindings, "cpu" if interpret else "cuda")
    grid = (grid_size(artifact, bindings),)
    if grid == (0,):
        return lambda values: None
    module = load_module(artifact.source, "interpret" if interpret else "jit")
    launcher = getattr(module, artifact.kernel_name)[grid]
    options = {"num_warps": artifact.num_warps, "num_stages": artifact.num_stages}
    options = {k: v for k, v in options.items() if v is not None}
    if not interpret:
        return lambda values: launcher(*values, **options)

    def run(values) -> None:
        with _INTERPRETER:
            launcher(*values, **options)

    return run


_INTERPRETER = threading.Lock()
