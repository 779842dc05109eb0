"""ssa.order_memory: a program's accesses to global memory happen in the order it wrote them.

A target whose tile ops each run spread over the program's threads, with nothing ordering one
thread's global access against another's (capability `memory_order` "barrier": Triton, which
synchronizes shared memory itself but not a global buffer read back, triton-lang/triton#10924),
gets a `mem.barrier` before an access that may meet an earlier one on another thread:

- any access to a buffer stored to or atomically updated since the last barrier: a read back of
  what the program wrote, or a write over it (the two address tensors are not compared, so two
  stores to disjoint halves are fenced too); atomics of one kind commute and need none (an
  exchange, or two kinds, are fenced as writes);
- a store or atomic to a buffer loaded since the last barrier, unless the value written comes
  from that load (write after read; a value computed from the tile loaded cannot be written
  before that tile is read).

A loop's body may meet the accesses of its own previous iteration, so it starts from them as
well; after an `scf.if` either branch's accesses may have happened. A buffer is one kernel
argument: a tensor passed as two arguments and read back through the other is not seen here.

`mem.barrier` (NineToothed's `ntl.debug_barrier()`) waits for the program's other threads: where
a program is one thread (capability `parallel` "serial") there is nothing to wait for, and it is
removed. Other targets order their loops' accesses themselves (`ssa.lower_parallel`).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Block, Builder, Kernel, Operation, Value
from compiler.passes.base import Pass, PassContext
from compiler.passes.registry import register

_ACCESSES = frozenset({"mem.load", "mem.store", "mem.atomic"})
_LOOPS = frozenset({"scf.for", "scf.while"})

# Accesses since the last barrier, per buffer.
Pending = dict[Value, list[Operation]]


@register
@dataclass(frozen=True)
class OrderMemory(Pass):
    name = "ssa.order_memory"
    category = "hardware-dependent"
    description = "barriers between a program's dependent global accesses where threads race"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        target = ctx.require_target(self.name)
        if target.capability("memory_order") == "barrier":  # a buffer written and accessed again
            return any(
                len(ops) > 1 and any(op.name != "mem.load" for op in ops)
                for ops in _accesses(kernel).values()
            )
        if target.capability("parallel") == "serial":
            return any(op.name == "mem.barrier" for op in kernel.walk())
        return False

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        if ctx.target.capability("memory_order") != "barrier":
            for op in [op for op in kernel.walk() if op.name == "mem.barrier"]:
                op.parent.ops.remove(op)
            return True
        inserted: list[Operation] = []
        _order(kernel.body, {}, inserted)
        return bool(inserted)


def _order(block: Block, pending: Pending, inserted: list[Operation]) -> Pending:
    """Walk `block` from `pending` on, inserting barriers; what is pending at its end."""
    for op in list(block.ops):
        if op.name == "mem.barrier":
            pending = {}
        elif op.regions:
            pending = _order_regions(op, pending, inserted)
        elif _global_access(op):
            buffer = op.operands[0]
            if any(_races(earlier, op) for earlier in pending.get(buffer, ())):
                builder = Builder(block)
                builder.index = block.ops.index(op)
                inserted.append(builder.create("mem.barrier", []))
                pending = {}
            pending = _joined(pending, {buffer: [op]})
    return pending


def _order_regions(op: Operation, pending: Pending, inserted: list[Operation]) -> Pending:
    entry = pending
    if op.name in _LOOPS:  # the body also follows its own previous iteration
        entry = _joined(pending, _accesses(op))
    ends = [_order(region.block, entry, inserted) for region in op.regions]
    for end in ends:
        pending = _joined(pending, end)
    return pending


def _joined(a: Pending, b: Pending) -> Pending:
    return {buffer: [*a.get(buffer, ()), *b.get(buffer, ())] for buffer in {*a, *b}}


def _accesses(op: Operation | Kernel) -> Pending:
    """Every global access nested in `op` (or the whole kernel), as if pending."""
    found: Pending = {}
    for inner in op.walk():
        if _global_access(inner):
            found.setdefault(inner.operands[0], []).append(inner)
    return found


def _global_access(op: Operation) -> bool:
    return op.name in _ACCESSES and op.attrs.get("scope", "global") == "global"


def _races(earlier: Operation, later: Operation) -> bool:
    """Whether `later` may meet `earlier` (one buffer) on another thread unless ordered."""
    if earlier is later or earlier.name == later.name == "mem.load":
        return False
    if earlier.name == later.name == "mem.atomic" and _commute(earlier, later):
        return False
    if earlier.name == "mem.load":  # write after read
        return not _comes_from(later.operands[2], earlier)
    return True  # after a write: read back, or written over


def _commute(a: Operation, b: Operation) -> bool:
    """Atomics of one kind commute (an add and a max, two exchanges or two compare-and-swaps do
    not)."""
    return a.attrs["kind"] == b.attrs["kind"] not in ("xchg", "cas")


def _comes_from(value: Value, load: Operation) -> bool:
    """Whether `value` is computed from what `load` read."""
    seen, stack = set(), [value]
    while stack:
        owner = stack.pop().owner
        if owner is load:
            return True
        if isinstance(owner, Operation) and id(owner) not in seen:
            seen.add(id(owner))
            stack.extend(owner.operands)
    return False
