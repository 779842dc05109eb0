"""What every function lowered into one kernel shares: the builder, typed arithmetic, index math."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.frontend.access import Accessor
from compiler.frontend.arith import Arith
from compiler.frontend.index_domain import IndexDomain


@dataclass
class KernelContext:
    arith: Arith
    domain: IndexDomain
    accessor: Accessor
    constexprs: dict[str, int]

    @property
    def builder(self):
        return self.arith.b
