"""ssa.tilelang.optimize_schedule: this backend's slot in the shared pipeline, filled by the
shared thread-count rule (`compiler/passes/helpers/thread_count.py`) with the target's
`max_warps`."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.passes.helpers.thread_count import WarpsForLargestTile
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class OptimizeSchedule(WarpsForLargestTile):
    name = "ssa.tilelang.optimize_schedule"
    category = "backend-specific"
    description = "record num_warps: given, else one thread per element of the largest tile"
