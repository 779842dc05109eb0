"""Hardware-independent passes: they read no target (or only whether it has an op) and would do
the same for any backend. In pipeline order:

- `specialize_arguments.py`  what the launch found about index arguments, read as constants
- `canonicalize/`            fold, CSE, DCE, LICM and conjunction chains, to a fixed point
- `analyze_effects.py`       which buffer arguments the kernel reads and writes
- `decompose_linalg.py`      `linalg.dot` as multiply + `reduce.sum` where the target lacks it
"""

from compiler.passes.hardware_independent import (
    analyze_effects,
    decompose_linalg,
    specialize_arguments,
)
from compiler.passes.hardware_independent.canonicalize import canonicalize

__all__ = ["analyze_effects", "canonicalize", "decompose_linalg", "specialize_arguments"]
