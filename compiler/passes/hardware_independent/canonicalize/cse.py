"""Common-subexpression elimination over pure ops, scoped by regions.

Two ops are the same when `compiler.ir.numbering.value_key` says so. A value defined outside a
region may replace one inside it; a value defined inside a region is never visible after it.
"""

from __future__ import annotations

from compiler.ir import Block, Kernel, Value, lookup
from compiler.ir.numbering import value_key


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
        seen, own, replaced = self.seen, [], self.replaced
        erased = set()
        for op in block.ops:
            if replaced and not replaced.keys().isdisjoint(op.operands):
                op.operands = [replaced.get(v, v) for v in op.operands]
            for region in op.regions:
                changed |= self.block(region.block)
            if op.regions or lookup(op.name).effect != "pure":
                continue
            key = value_key(op.name, op.operands, op.attrs, [r.type for r in op.results])
            earlier = seen.get(key)
            if earlier is not None:
                replaced.update(zip(op.results, earlier, strict=True))
                op.parent = None
                erased.add(op)
            else:
                seen[key] = op.results
                own.append(key)
        for key in own:
            del seen[key]
        if erased:  # out of the block at once: one by one, each would search the list
            block.ops[:] = [op for op in block.ops if op not in erased]
        return bool(erased) or changed
