"""The CUDA C++ backend: one target record per device (the same source for both), and its
backend-specific schedule pass.

Importing this package registers `ssa.cuda.optimize_schedule`; the pass registry imports it when a
pipeline names that pass.
"""

from compiler.backends.cuda.schedule import OptimizeSchedule
from compiler.backends.cuda.target import TARGET, TARGETS

__all__ = ["TARGET", "TARGETS", "OptimizeSchedule"]
