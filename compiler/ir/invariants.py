"""Values the same in every program of a launch: the kernel's scalar arguments, constants, and pure
scalar ops of those alone (a size's trip count, a stride a launch specialized). A target may keep
them as plain definitions, which its own analysis reads through."""

from __future__ import annotations

from compiler.ir.core import Kernel, Value
from compiler.ir.registry import lookup
from compiler.ir.types import ScalarType


def launch_invariants(kernel: Kernel) -> set[Value]:
    found = {arg for arg in kernel.args if isinstance(arg.type, ScalarType)}
    for op in kernel.walk():
        scalar = len(op.results) == 1 and isinstance(op.result.type, ScalarType)
        if not scalar or op.regions or lookup(op.name).effect != "pure":
            continue
        # an op of no operands other than a constant reads the program (its id, its thread)
        if op.name == "arith.constant" or (op.operands and found.issuperset(op.operands)):
            found.add(op.result)
    return found
