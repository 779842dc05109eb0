"""A launched kernel lowered again from its initial IR with other settings: its 64-bit index form
(index_width.py), other block sizes (coverage.py) or what the launch's tensors show
(specialization.py). Each form is built once per process."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import NamedTuple

from compiler.backends.artifact import Artifact
from compiler.backends.lowering import lower_unified_ssa_artifact
from compiler.ir import parse_kernel


class LaunchFacts(NamedTuple):
    """What a launch's arguments show that the kernel may be lowered for."""

    units: tuple[str, ...] = ()  # index arguments equal to 1
    aligned: tuple[str, ...] = ()  # buffers whose data starts aligned
    multiples: tuple[tuple[str, int], ...] = ()  # index arguments with a divisor each


NO_FACTS = LaunchFacts()


def relowered(
    artifact: Artifact,
    schedule: Mapping[str, int] | None = None,
    index_bits: int | None = None,
    facts: LaunchFacts = NO_FACTS,
) -> Artifact:
    """`artifact`'s kernel with `schedule` over its own block sizes, in `index_bits` offsets
    (None: the target's own width), knowing `facts`."""
    options = {**artifact.schedule, **(schedule or {}), "num_warps": artifact.num_warps}
    options |= {"num_stages": artifact.num_stages}
    chosen = tuple(sorted((k, v) for k, v in options.items() if v is not None))
    return _lowered(
        artifact.initial_ssa, artifact.backend, artifact.device, chosen, index_bits, facts
    )


@functools.cache
def _lowered(
    initial_ssa: str,
    backend: str,
    device: str,
    options: tuple,
    index_bits: int | None,
    facts: LaunchFacts,
) -> Artifact:
    kernel = parse_kernel(initial_ssa)
    if facts.units:
        kernel.attrs["unit_arguments"] = list(facts.units)
    if facts.aligned:
        kernel.attrs["aligned"] = list(facts.aligned)
    if facts.multiples:
        kernel.attrs["multiple_arguments"] = [list(pair) for pair in facts.multiples]
    return lower_unified_ssa_artifact(
        kernel, backend, device=device, options=dict(options), index_bits=index_bits
    )
