"""Backend-specific passes: what one target needs of the IR before its emitter spells it.

- `lower_backend_intrinsics.py`  every op the target does not accept decomposed generically, every
                                 operand dtype it does not take widened
- `wrap_64_bit_arithmetic.py`    64-bit arithmetic that may overflow rebuilt on 32-bit halves, where
                                 the target reads overflow as impossible (`overflow_free_64`)

Each backend's own `ssa.<backend>.optimize_schedule` lives with the backend
(`compiler/backends/<backend>/schedule.py`) and is registered when the pipeline names it.
"""

from compiler.passes.backend_specific import lower_backend_intrinsics, wrap_64_bit_arithmetic

__all__ = ["lower_backend_intrinsics", "wrap_64_bit_arithmetic"]
