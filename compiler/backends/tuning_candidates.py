"""The schedules measured autotuning would time for a compiled kernel: `ssa.select_schedule`'s
candidates for the meta symbols nobody gave, read from the artifact's initial IR with the options
it was lowered with (its own choice first where it is one of them). Generated modules
(compiler/frontend/generation.py) and the behavioural audits enumerate configurations with it."""

from __future__ import annotations

from compiler.backends.artifact import Artifact
from compiler.backends.registry import get_target
from compiler.ir import parse_kernel
from compiler.passes.base import PassContext
from compiler.passes.registry import get


def tuning_candidates(artifact: Artifact) -> list[dict[str, int]]:
    """[] when every meta symbol was given (nothing to tune)."""
    target = get_target(artifact.backend, artifact.device)
    context = PassContext(target=target, options=dict(artifact.lowering.get("options", {})))
    found = get("ssa.select_schedule")().tuning_candidates(
        parse_kernel(artifact.initial_ssa), context
    )
    chosen = dict(artifact.schedule)
    return sorted(found, key=lambda candidate: candidate != {k: chosen[k] for k in candidate})
