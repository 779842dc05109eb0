"""The TileLang backend: one target record per device (the CPU's C target and CUDA), and its
backend-specific schedule pass.

Importing this package registers `ssa.tilelang.optimize_schedule`; the pass registry imports it
when a pipeline names that pass.
"""

from compiler.backends.tilelang.schedule import OptimizeSchedule
from compiler.backends.tilelang.target import TARGET, TARGETS

__all__ = ["TARGET", "TARGETS", "OptimizeSchedule"]
