"""Common-subexpression elimination over pure ops, scoped by regions.

Two ops are the same when their name, operands (by identity), attributes (by their printed text, so
`0.0` and `-0.0` differ) and result types are. A value defined outside a region may replace one
inside it; a value defined inside a region is never visible after it.
"""

from __future__ import annotations

from collections import ChainMap

from compiler.ir import Block, Kernel, Operation, Value, lookup
from compiler.ir.printer import format_attrs
from compiler.passes.rewrite import erase


def cse(kernel: Kernel) -> bool:
    return _Eliminator().block(kernel.body, ChainMap())


class _Eliminator:
    def __init__(self) -> None:
        self.replaced: dict[Value, Value] = {}

    def block(self, block: Block, seen: ChainMap) -> bool:
        changed = False
        for op in list(block.ops):
            op.operands = [self.replaced.get(v, v) for v in op.operands]
            for region in op.regions:
                changed |= self.block(region.block, seen.new_child())
            if op.regions or lookup(op.name).effect != "pure":
                continue
            key = _key(op)
            if key in seen:
                self.replaced.update(zip(op.results, seen[key], strict=True))
                erase(op)
                changed = True
            else:
                seen[key] = op.results
        return changed


def _key(op: Operation) -> tuple:
    return (
        op.name,
        tuple(op.operands),
        format_attrs(op.attrs),
        tuple(result.type for result in op.results),
    )
