"""The Triton backend: its target record and its backend-specific schedule pass.

Importing this package registers `ssa.triton.optimize_schedule`; the pass registry imports it when
a pipeline names that pass.
"""

from compiler.backends.triton.schedule import OptimizeSchedule
from compiler.backends.triton.target import TARGET, TARGETS

__all__ = ["TARGET", "TARGETS", "OptimizeSchedule"]
