"""ssa.lower_parallel: run each `scf.parallel` the way the target's `parallel` capability says.

- "native": keep it (the target spells it, e.g. TileLang's `T.Parallel`);
- "serial": an `scf.for` over 0 .. n-1;
- "threads": an `scf.for` from this thread's id to n in steps of the thread count (correct for any
  number of threads, one included) between two `mem.barrier`s where it writes what other threads
  may read: the one after lets later code read what other threads wrote; the one before keeps the
  loop from overwriting what code between loops may still be reading. A barrier right after
  another is dropped.

In both forms with threads, an atomic outside the parallel loops, which every thread would make,
is first made a parallel loop of one iteration (`helpers/once_per_program.py`).

Register micro-tiles, where the target names a `private` memory scope and spreads loops over
threads (its own way, "native", or "threads"): an array that only loops of its own extent touch,
each element at the loop's own position, is only ever touched by one thread per element, so each
thread keeps just its share, in the `private` scope (for "native", a scope whose layout the target
matches to its loops, such as TileLang's fragments). With "threads", loops touching one run in
rounds: round r takes position `thread id + r * thread count` (where it is below the extent) and
indexes private arrays by r, so a private array needs ceil(n / threads) elements per thread (n
with the one thread of the reference interpreter). A loop whose only writes are to private arrays
needs no barrier.

Accumulators each thread holds its own elements of, in a layout of the target's (capability
`array_dot` with `accumulator_slots`: tensor-core fragments), where a loop reads or writes one,
each element at the loop's own position: the loop walks this thread's slots of it instead,
`for slot in 0 .. mem.owned_slots(acc)` at `mem.owned_position(acc, slot)` (where below the
extent), with the accumulator indexed by the slot. Other arrays such a loop touches stay shared:
which thread holds which of their elements is no longer the rounds' choice.

Lanes, where the target has vector accesses (capability `vector_access`) and the launch found
buffers aligned (kernel attr `aligned`): each thread takes `lanes` consecutive positions a round,
`(thread + r * thread count) * lanes + lane`, in an `scf.for {lanes}` over the lanes, so that
ssa.vectorize_accesses can make their accesses vectors; how many is `helpers/lanes.py`'s
`lane_count`, the same for every loop whose extent it divides (private arrays stay each thread's
own), 1 where no access would gain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compiler.ir import Block, Builder, Kernel, Operation, Region, Value
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.lanes import lane_count
from compiler.passes.helpers.once_per_program import atomics_once_per_program
from compiler.passes.helpers.rewrite import builder_before
from compiler.passes.helpers.thread_count import WARP
from compiler.passes.registry import register

FORMS = ("native", "serial", "threads")
# Ops in a loop body that write something other threads may read (a private array aside).
_SHARED_WRITES = frozenset({"mem.store", "mem.atomic", "mem.dot", "mem.copy", "mem.reduce"})


@register
@dataclass(frozen=True)
class LowerParallel(Pass):
    name = "ssa.lower_parallel"
    category = "hardware-dependent"
    description = (
        "scf.parallel kept, made a serial loop, or spread over threads with barriers (arrays "
        "each thread alone touches kept in its private scope)"
    )

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        """Without parallel loops, only arrays (made private) could change. The target's
        capability is checked even where nothing runs: a bad record fails on every kernel."""
        self.form(ctx)
        return any(op.name in ("scf.parallel", "mem.alloc", "mem.atomic") for op in kernel.walk())

    def form(self, ctx: PassContext) -> str:
        target = ctx.require_target(self.name)
        form = target.capability("parallel", "native")
        if form not in FORMS:
            raise PassError(
                f"{self.name}: target {target.name} has parallel={form!r}; use one of {FORMS}"
            )
        return form

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        form, target = self.form(ctx), ctx.target
        # Without tile values, every thread runs what is outside the parallel loops: an atomic
        # there, one of them. (With tile values, the target's own program-level code is once.)
        threads = form != "serial" and not target.capability("value_semantics", True)
        once = threads and atomics_once_per_program(kernel, target.memory_scopes["tile"])
        loops = [op for op in kernel.walk() if op.name == "scf.parallel"]
        walks = {} if form == "native" else self.slot_walks(kernel, target, loops)
        if form == "serial" or "private" not in target.memory_scopes:
            private = set()
        else:
            private = _private_arrays(kernel, loops, walks)
        for array in private:
            array.owner.attrs["scope"] = target.memory_scopes["private"]
        if form == "native" or not loops:
            return bool(private) or once
        lanes = 1
        access = target.capability("vector_access")
        if form == "threads" and access:
            aligned = set(kernel.attrs.get("aligned") or ())
            threads = WARP * (kernel.attrs.get("num_warps") or 1)
            lanes = lane_count(loops, aligned, access["bytes"], threads)
        for op in loops:
            if form == "serial" and op not in walks:
                _serial(op)
            elif form == "serial":
                _slot_walk(builder_before(op), op, walks[op])
                op.parent.ops.remove(op)
            else:
                extent = constant_value(op.operands[0])
                fits = isinstance(extent, int) and extent % lanes == 0 and op not in walks
                _threads(op, private, lanes if fits else 1, walks.get(op, []))
        return True

    def slot_walks(self, kernel: Kernel, target, loops: list[Operation]) -> dict:
        """The loops that touch an accumulator the target lays out per thread, with those
        accumulators; every access of one must be at its loop's own position, over its size."""
        capability = target.capability("array_dot") or {}
        scope = capability.get("accumulator")
        if not (scope and capability.get("accumulator_slots")):
            return {}
        walks = {}
        for loop in loops:
            (position,) = loop.regions[0].block.args
            found: list[Value] = []
            for use in loop.walk():
                for index, value in enumerate(use.operands):
                    owner = value.owner
                    if not (isinstance(owner, Operation) and owner.name == "mem.alloc"):
                        continue
                    if owner.attrs.get("scope") != scope:
                        continue
                    at_own = use.name in ("mem.read", "mem.write") and index == 0
                    at_own = at_own and use.operands[1] is position
                    if not (at_own and constant_value(loop.operands[0]) == value.type.size):
                        raise PassError(
                            f"{self.name}: {use.name} in @{kernel.name} touches an accumulator "
                            f"({value.type}, scope {scope}) other than at its element loop's "
                            "own position, and a target with accumulator_slots reaches only "
                            "each thread's own elements; copy the accumulator out (mem.copy) "
                            "and read the copy"
                        )
                    if value not in found:
                        found.append(value)
            if len({v.type for v in found}) > 1:
                raise PassError(
                    f"{self.name}: an element loop in @{kernel.name} touches accumulators of "
                    f"different types ({', '.join(str(v.type) for v in found)}), whose slots "
                    "need not hold the same positions; give each its own loop"
                )
            if found:
                walks[loop] = found
        return walks


def _private_arrays(
    kernel: Kernel, loops: list[Operation], walks: dict[Operation, list[Value]]
) -> set[Value]:
    """The arrays every access of which is a read or write at the position of the innermost
    `scf.parallel` around it, a loop whose extent is the array's size, and none of them in a
    loop that walks an accumulator's slots."""
    arrays = {op.result for op in kernel.walk() if op.name == "mem.alloc"}
    position_of = {}  # an op inside a parallel loop -> that loop's position and extent
    for loop in loops:
        (position,) = loop.regions[0].block.args
        for inner in loop.walk():
            if inner is not loop:
                position_of[inner] = (position, constant_value(loop.operands[0]))
    shared = {v for loop in walks for inner in loop.walk() for v in inner.operands}
    for op in kernel.walk():
        for index, value in enumerate(op.operands):
            if value not in arrays:
                continue
            at, extent = position_of.get(op, (None, None))
            if not (
                op.name in ("mem.read", "mem.write")
                and index == 0
                and op.operands[1] is at
                and extent == value.type.size
            ):
                shared.add(value)
    return arrays - shared


def _serial(op: Operation) -> None:
    b = builder_before(op)
    start, step = b.constant(0, "index"), b.constant(1, "index")
    b.create("scf.for", [start, op.operands[0], step], {}, [], [op.regions.pop()])
    op.parent.ops.remove(op)


def _threads(op: Operation, private: set[Value], lanes: int, accumulators: list[Value]) -> None:
    touched = {v for inner in op.walk() for v in inner.operands if v in private}
    own = private.union(accumulators)
    writes_shared = any(
        inner.name in _SHARED_WRITES or (inner.name == "mem.write" and inner.operands[0] not in own)
        for inner in op.walk()
    )
    b = builder_before(op)
    previous = op.parent.ops[op.parent.ops.index(op) - 1] if op.parent.ops[0] is not op else None
    if writes_shared and (previous is None or previous.name != "mem.barrier"):
        b.create("mem.barrier", [])
    start, step = b.value("index.thread_id"), b.value("index.num_threads")
    groups = op.operands[0]
    if lanes > 1:
        groups = b.constant(constant_value(groups) // lanes, "index")
        for array in touched:
            array.owner.attrs["lanes"] = lanes
    if accumulators:
        _slot_walk(b, op, accumulators)
    elif touched:
        _rounds(b, op, start, step, groups, touched, lanes)
    else:
        group = Value(groups.type)
        loop = Block([group])
        b.create("scf.for", [start, groups, step], {}, [], [Region([loop])])
        _take_body(Builder(loop), op, group, lanes)
    if writes_shared:
        b.create("mem.barrier", [])
    op.parent.ops.remove(op)


def _rounds(
    b: Builder,
    op: Operation,
    thread: Value,
    threads: Value,
    groups: Value,
    private: set[Value],
    lanes: int,
) -> None:
    """for r in 0 .. ceil(groups / threads): group = thread + r * threads; if group < groups:
    the body at the group's positions, with the private arrays indexed by the round's share of
    them (r, or r * lanes + lane)."""
    one = b.constant(1, "index")
    rounds = b.value("arith.sub", b.value("arith.add", groups, threads), one)
    rounds = b.value("arith.idiv", rounds, threads)
    round_ = Value(groups.type)
    loop = Block([round_])
    b.create("scf.for", [b.constant(0, "index"), rounds, one], {}, [], [Region([loop])])
    inner = Builder(loop)
    group = inner.value("arith.add", thread, inner.value("arith.mul", round_, threads))

    def share(lane: Value | None) -> Value:
        if lane is None:
            return round_
        at = Builder(lane.owner)
        at.index = 0
        return at.value(
            "arith.add", at.value("arith.mul", round_, at.constant(lanes, "index")), lane
        )

    _guarded(inner, op, group, groups, lanes, private, share)


def _slot_walk(b: Builder, op: Operation, accumulators: list[Value]) -> None:
    """for slot in 0 .. owned_slots: position = owned_position(slot); if position < extent: the
    body there, with the accumulators (one layout) indexed by the slot."""
    first = accumulators[0]
    one = b.constant(1, "index")
    slots = b.value("mem.owned_slots", first)
    slot = Value(slots.type)
    loop = Block([slot])
    b.create("scf.for", [b.constant(0, "index"), slots, one], {}, [], [Region([loop])])
    inner = Builder(loop)
    position = inner.value("mem.owned_position", first, slot)
    _guarded(inner, op, position, op.operands[0], 1, set(accumulators), lambda lane: slot)


def _guarded(
    inner: Builder,
    op: Operation,
    at: Value,
    bound: Value,
    lanes: int,
    arrays: set[Value],
    share: Callable[[Value | None], Value],
) -> None:
    """if at < bound: the loop's body at `at` (`_take_body`), its reads and writes of `arrays`
    at `share(lane)`, this thread's index into them; then the enclosing loop's yield."""
    within = inner.value("arith.cmp", at, bound, pred="lt")
    then, otherwise = Block(), Block()
    Builder(otherwise).create("scf.yield", [])
    index = share(_take_body(Builder(then), op, at, lanes))
    for nested in then.ops:
        for use in nested.walk():
            if use.name in ("mem.read", "mem.write") and use.operands[0] in arrays:
                use.operands[1] = index
    inner.create("scf.if", [within], {}, [], [Region([then]), Region([otherwise])])
    inner.create("scf.yield", [])


def _take_body(b: Builder, op: Operation, group: Value, lanes: int) -> Value | None:
    """Move the loop's body (its yield last) to the end of `b`'s block, there at the positions of
    `group`: the group itself, or with lanes, a loop over them (`scf.for {lanes}`) at positions
    group * lanes + lane. The lane, if any."""
    old = op.regions[0].block
    (position,) = old.args
    block, lane = b.block, None
    if lanes > 1:
        lane = Value(position.type)
        block = Block([lane])
        bounds = [b.constant(0, "index"), b.constant(lanes, "index"), b.constant(1, "index")]
        b.create("scf.for", bounds, {"lanes": lanes}, [], [Region([block])])
        b.create("scf.yield", [])
        at = Builder(block)
        group = at.value("arith.add", at.value("arith.mul", group, bounds[1]), lane)
    for nested in old.ops:
        for use in nested.walk():
            use.operands = [group if v is position else v for v in use.operands]
        block.append(nested)
    return lane
