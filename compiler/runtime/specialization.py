"""Launch specialization, for a target that asks for it (capability `specialize`): the kernel is
lowered again for what this launch's tensors show, as Triton specializes its kernels. The index
arguments equal to 1 (unit strides above all) become constants (ssa.specialize_arguments), so
offsets along them step by one element, and CUDA C++ then loads and stores a thread's lanes as
vectors (ssa.vectorize_accesses). The buffers whose data starts at a multiple of the capability's
`alignment` bytes are recorded as aligned (kernel attr `aligned`), which vector accesses need.
Each such form is built once per process (compiler/runtime/relower.py); a launch with nothing to
specialize runs the artifact as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.backends.registry import get_target
from compiler.runtime.relower import relowered


def specialized(artifact: Artifact, bindings: Mapping[str, object]) -> Artifact:
    """`artifact` lowered for these bindings' unit index arguments and aligned buffers."""
    wanted = get_target(artifact.backend, artifact.device).capability("specialize")
    if not wanted or not artifact.initial_ssa:  # an artifact made from source alone runs as is
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
        and bindings[name].data_ptr() % wanted["alignment"] == 0
    )
    if not units and not aligned:
        return artifact
    return relowered(artifact, index_bits=artifact.index_bits, facts=(units, aligned))
