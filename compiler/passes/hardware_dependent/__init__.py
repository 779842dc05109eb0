"""Hardware-dependent passes: each asks the target's record (capabilities, memory scopes, legal
dtypes) what to do, never which backend it is. In pipeline order:

- `select_schedule/`            bind block sizes (a static rule or measured autotuning)
- `lower_memory_scopes.py`      spell each access's memory scope the target's way
- `emulate_narrow_floats/`      fp8, bf16 as their bits where the target does not compute them
- `legalize_argument_dtypes.py` argument element types the target cannot take
- `lower_tiles_to_loops/`       targets without tile values: arrays and loops over elements
- `lower_parallel.py`           element loops run serially, natively or across a block's threads
- `vectorize_accesses.py`       a thread's lanes load and store as vectors
- `wrap_grid.py`                program ids as a loop where the target has no grid
- `normalize_loops.py`          loops that count 0, 1, 2, ...
- `order_memory.py`             barriers between a program's dependent global accesses
- `pipeline_loops.py`           software-pipelined copy-and-dot loops
"""

from compiler.passes.hardware_dependent import (
    legalize_argument_dtypes,
    lower_memory_scopes,
    lower_parallel,
    normalize_loops,
    order_memory,
    pipeline_loops,
    vectorize_accesses,
    wrap_grid,
)
from compiler.passes.hardware_dependent.emulate_narrow_floats import emulate_narrow_floats
from compiler.passes.hardware_dependent.lower_tiles_to_loops import lower_tiles_to_loops
from compiler.passes.hardware_dependent.select_schedule import select_schedule

__all__ = [
    "emulate_narrow_floats",
    "legalize_argument_dtypes",
    "lower_memory_scopes",
    "lower_parallel",
    "lower_tiles_to_loops",
    "normalize_loops",
    "order_memory",
    "pipeline_loops",
    "select_schedule",
    "vectorize_accesses",
    "wrap_grid",
]
