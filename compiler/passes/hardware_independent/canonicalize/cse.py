"""Common-subexpression elimination over pure ops, scoped by regions.

Two ops are the same when their name, operands (by identity), attributes (by their printed text, so
`0.0` and `-0.0` differ) and result types are. A value defined outside a region may replace one
inside it; a value defined inside a region is never visible after it.
"""

from __future__ import annotations

from compiler.ir import Block, Kernel, Operation, Value, lookup
from compiler.ir.printer import format_attrs
from compiler.passes.helpers.rewrite import erase


def cse(kernel: Kernel) -> bool:
    return _Eliminator().block(kernel.body)


class _Eliminator:
    def __init__(self) -> None:
        self.replaced: dict[Value, Value] = {}
        # The keys visible in the current block: its own and its enclosing blocks'. A key is only
        # added when absent, so forgetting a block's own keys on leaving it restores the outer view.
        self.seen: dict[tuple, list[Value]] = {}

    def block(self, block: Block) -> bool:
        changed = False
        seen, own = self.seen, []
        for op in list(block.ops):
            if self.replaced and not self.replaced.keys().isdisjoint(op.operands):
                op.operands = [self.replaced.get(v, v) for v in op.operands]
            for region in op.regions:
                changed |= self.block(region.block)
            if op.regions or lookup(op.name).effect != "pure":
                continue
            key = _key(op)
            if key in seen:
                self.replaced.update(zip(op.results, seen[key], strict=True))
                erase(op)
                changed = True
            else:
                seen[key] = op.results
                own.append(key)
        for key in own:
            del seen[key]
        return changed


def _key(op: Operation) -> tuple:
    return (
        op.name,
        tuple(op.operands),
        format_attrs(op.attrs) if op.attrs else "",  # most ops have none
        tuple([result.type for result in op.results]),
    )
