"""The TVM backend (TVMScript TIR, apache-tvm 0.27): its target record per device and its
backend-specific schedule pass. Kernels run through `compiler/runtime/tvm_launcher.py`, which
hands them to a worker in `.venv-tvm` (see the README's "TVM environment").

Importing this package registers `ssa.tvm.optimize_schedule`; the pass registry imports it when a
pipeline names that pass.
"""

from compiler.backends.tvm.schedule import OptimizeSchedule
from compiler.backends.tvm.target import TARGET, TARGETS

__all__ = ["TARGET", "TARGETS", "OptimizeSchedule"]
