"""Launch specialization, for a target with vector accesses (capability `vector_access`): the
kernel is lowered again for what this launch's tensors show, as Triton specializes its kernels:
the index arguments equal to 1 (unit strides above all) become constants
(ssa.specialize_arguments), and the buffers whose data starts at a multiple of the vector width
are recorded as aligned, so ssa.vectorize_accesses may read and write them in vectors. Each such
form is built once per process (compiler/runtime/relower.py); a launch with nothing to specialize
runs the artifact as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.backends.registry import get_target
from compiler.runtime.relower import relowered


def specialized(artifact: Artifact, bindings: Mapping[str, object]) -> Artifact:
    """`artifact` lowered for these bindings' unit index arguments and aligned buffers."""
    access = get_target(artifact.backend, artifact.device).capability("vector_access")
    if not access or not artifact.initial_ssa:  # an artifact made from source alone runs as is
        return artifact
    units = tuple(
        name
        for name, _ in artifact.args
        if artifact.arg_dtypes[name] == "index"
        and type(bindings.get(name)) is int
        and bindings[name] == 1
    )
    aligned = tuple(
        name
        for name, kind in artifact.args
        if kind == "buffer"
        and isinstance(bindings.get(name), torch.Tensor)
        and bindings[name].data_ptr() % access["bytes"] == 0
    )
    if not units and not aligned:
        return artifact
    return relowered(artifact, index_bits=artifact.index_bits, facts=(units, aligned))
