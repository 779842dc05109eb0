"""Launch specialization, for a target that asks for it (capability `specialize`): the kernel is
lowered again for what this launch's tensors show, as Triton specializes its kernels. The index
arguments equal to 1 (unit strides above all) become constants (ssa.specialize_arguments), so
offsets along them step by one element, and CUDA C++ then loads and stores a thread's lanes as
vectors (ssa.vectorize_accesses). The buffers whose data starts at a multiple of the capability's
`alignment` bytes are recorded as aligned (kernel attr `aligned`), which vector accesses need.

A target that proves alignment itself from the program (TileLang: a box copy whose rows start at
multiples of the vector becomes `cp.async` of whole vectors) asks for `multiple` too: the index
arguments that number divides read as multiples of it. Such a target assumes every buffer starts
aligned once it can prove offsets are (`all_aligned`), so it is specialized only when every
buffer is; a launch with a misaligned one runs the general form.
Each form is built once per process (compiler/runtime/relower.py); a launch with nothing to
specialize runs the artifact as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.backends.registry import get_target
from compiler.runtime.relower import LaunchFacts, relowered


def specialized(artifact: Artifact, bindings: Mapping[str, object]) -> Artifact:
    """`artifact` lowered for these bindings' unit index arguments and aligned buffers."""
    wanted = get_target(artifact.backend, artifact.device).capability("specialize")
    if not wanted or not artifact.initial_ssa:  # an artifact made from source alone runs as is
        return artifact
    numbers = {
        name: bindings[name]
        for name, _ in artifact.args
        if artifact.arg_dtypes[name] == "index" and type(bindings.get(name)) is int
    }
    buffers = [(name, bindings.get(name)) for name, kind in artifact.args if kind == "buffer"]
    aligned = tuple(
        name
        for name, tensor in buffers
        if isinstance(tensor, torch.Tensor) and tensor.data_ptr() % wanted["alignment"] == 0
    )
    if wanted.get("all_aligned") and len(aligned) < len(buffers):
        return artifact
    units = tuple(name for name, number in numbers.items() if number == 1)
    divisor = wanted.get("multiple")
    multiples = tuple(
        (name, divisor)
        for name, number in numbers.items()
        if divisor and number != 1 and number % divisor == 0
    )
    if not units and not aligned and not multiples:
        return artifact
    facts = LaunchFacts(units, aligned, multiples)
    return relowered(artifact, index_bits=artifact.index_bits, facts=facts)
