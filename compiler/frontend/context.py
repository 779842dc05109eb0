"""What every function lowered into one kernel shares: the builder, typed arithmetic, index math."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.frontend.access import Accessor
from compiler.frontend.arith import Arith
from compiler.frontend.index_domain import IndexDomain
from compiler.frontend.primitives.grid import Grid


@dataclass
class KernelContext:
    arith: Arith
    domain: IndexDomain
    accessor: Accessor
    constexprs: dict[str, int]
    grid: Grid
    # Each function's source read and parsed once per kernel: a helper is inlined at every call.
    definitions: dict[object, tuple] = field(default_factory=dict)
    # Lowering a function mapped over elements (`ntl.map_elementwise`): `if` is per element.
    per_element: bool = False

    @property
    def builder(self):
        return self.arith.b
