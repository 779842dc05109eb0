"""Index width per launch. A kernel computes element offsets in its target's `index_bits`; before
it runs, each tensor's reach is checked against that width. Where it does not fit, the kernel is
lowered again in its target's 64-bit form (`Target.widened`; built and cached apart, as its source
differs) and that one runs; a target without such a form refuses the launch, naming the tensor and
the backends that index in 64 bits.

An index along a dimension stays below the size rounded up to a whole tile, so it is bounded by the
size plus the largest block size less one: masked-off lanes compute such indices too, and one that
wrapped around would pass its mask. A flattened dimension's size is a product of sizes, bounded by
the tensor's element count.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.backends.registry import get_target, wide_index_advice
from compiler.runtime.bindings import LaunchError
from compiler.runtime.relower import relowered


def fitting(artifact: Artifact, bindings: Mapping[str, object]) -> Artifact:
    """`artifact` where its offsets fit these tensors, else its 64-bit form."""
    overflow = _overflow(artifact, bindings)
    if overflow is None:
        return artifact
    if get_target(artifact.backend, artifact.device).widened() is None:
        raise LaunchError(_refusal(artifact, *overflow))
    return relowered(artifact, index_bits=64)


def _overflow(artifact: Artifact, bindings: Mapping[str, object]) -> tuple[str, str] | None:
    """(name, what passes the width) of the first tensor whose offsets, or index argument whose
    value, the artifact's index width cannot hold, else None."""
    if artifact.index_bits >= 64:
        return None
    limit = 2 ** (artifact.index_bits - 1) - 1
    pad = max((v for v in artifact.schedule.values() if isinstance(v, int)), default=1) - 1
    for name, kind in artifact.args:
        value = bindings.get(name)
        if kind != "buffer":
            index = artifact.arg_dtypes.get(name) == "index" and isinstance(value, int)
            if index and not -limit - 1 <= value <= limit:
                return name, f"is {value}"
            continue
        if not isinstance(value, torch.Tensor) or value.numel() == 0:
            continue
        sizes, strides = value.shape, value.stride()
        reach = sum((size + pad) * abs(stride) for size, stride in zip(sizes, strides, strict=True))
        # A flattened dimension's index runs to the product of the sizes it joins (numel bounds
        # them all), which stride-0 dimensions keep out of the reach.
        reach = max([reach, *sizes, value.numel()]) + pad
        if reach > limit:
            return name, f"(sizes {tuple(sizes)}, strides {strides}) reaches element offset {reach}"
    return None


def _refusal(artifact: Artifact, name: str, passing: str) -> str:
    return (
        f"@{artifact.kernel_name} on {artifact.backend} ({artifact.device}) indexes in "
        f"{artifact.index_bits} bits, and {name} {passing}, past "
        f"{2 ** (artifact.index_bits - 1) - 1}; split the tensor, or "
        f"{wide_index_advice(artifact.device)}"
    )
