"""Conjunction chains: masks are `and`s of many bounds checks, often repeated (every level of a
view checks its indices) and interleaved with checks that depend on a loop. Flatten each chain,
drop repeated terms, and rebuild it left to right with the terms defined in outer blocks first, so
the loop-invariant prefix is one value that LICM can hoist.

    %m = arith.and(arith.and(%in_loop, %outer), %outer)   ->   arith.and(%outer, %in_loop)
"""

from __future__ import annotations

from compiler.ir import Block, Kernel, Operation, Value
from compiler.passes.helpers.rewrite import builder_before, defining_op


def normalize_conjunctions(kernel: Kernel) -> bool:
    changed = False
    for op in list(kernel.walk()):
        if op.name != "arith.and" or op.parent is None:
            continue
        terms = _terms(op.result)
        first = {}  # each term's first position: the order among terms of one depth
        for position, term in enumerate(terms):
            first.setdefault(term, position)
        canonical = sorted(first, key=lambda v: (_depth(v), first[v]))
        if terms == canonical and _left_associated(op):
            continue
        builder = builder_before(op)
        result = canonical[0]
        for term in canonical[1:]:
            result = builder.value("arith.and", result, term)
        kernel.replace_uses(op.result, result)
        changed = True
    return changed


def _terms(value: Value) -> list[Value]:
    op = defining_op(value)
    if op is None or op.name != "arith.and":
        return [value]
    return _terms(op.operands[0]) + _terms(op.operands[1])


def _left_associated(op: Operation) -> bool:
    right = defining_op(op.operands[1])
    if right is not None and right.name == "arith.and":
        return False
    left = defining_op(op.operands[0])
    return left is None or left.name != "arith.and" or _left_associated(left)


def _depth(value: Value) -> int:
    """How many regions enclose the definition of `value` (kernel arguments: -1)."""
    owner = value.owner
    if isinstance(owner, Operation):
        block = owner.parent
    elif isinstance(owner, Block):
        block = owner
    else:
        return -1
    depth = 0
    while block is not None and block.parent is not None:
        block = block.parent.parent.parent  # region -> op owning it -> block holding that op
        depth += 1
    return depth
