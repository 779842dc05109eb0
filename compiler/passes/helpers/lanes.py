"""Lanes: `lanes` consecutive positions of an element loop that one thread takes together, and
how a value of the loop body changes across them, so that an access may go as one vector.

A thread's first position is a multiple of `lanes` (ssa.lower_parallel maps position
`(thread + round * threads) * lanes + lane`), so the body sees its position as `base + lane` with
`base` a non-negative multiple of `lanes`. From that, `lane_forms` follows the body's scalar ops:

- an index value is `Form(step, aligned, nonnegative)`: its part common to all lanes plus
  `step` (0 or 1) times the lane, where that common part is (`aligned`) a multiple of `lanes` and
  (`nonnegative`) at least 0. `(base + lane) % C` and `(base + lane) // C` keep the form where C
  is a multiple of `lanes`: the lanes then share a row of a C-wide tile.
- an i1 value is UNIFORM (the same in every lane) or CONVEX (true on an interval of lanes: a
  comparison of a stepping value with a uniform one, and conjunctions of such), so it holds in
  every lane where it holds in the first and the last.

A value the rules do not cover has no form: an access using it stays scalar.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from compiler.ir import Operation, Value
from compiler.ir.registry import BUFFER_WRITES
from compiler.ir.types import storage_width
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.ranges import loop_of_induction_variable
from compiler.passes.helpers.rewrite import defining_op

UNIFORM, CONVEX = "uniform", "convex"
_ORDERED = frozenset({"lt", "le", "gt", "ge", "eq"})  # interval-shaped in a stepping operand
_READS = frozenset({"mem.load", "mem.atomic", "mem.load_lanes", "mem.copy_box_in"})
_NONNEGATIVE_IDS = frozenset({"index.thread_id", "index.num_threads", "index.program_id"})


@dataclass(frozen=True)
class Form:
    step: int
    aligned: bool
    nonnegative: bool


LANE = Form(1, True, True)


def lane_forms(ops: Iterable[Operation], lane: Value, lanes: int) -> dict[Value, Form | str]:
    """The forms of `lane` (the loop's position or lane) and of the values `ops` (a loop body's
    ops, in order) compute from it; values from outside the body are uniform."""
    forms: dict[Value, Form | str] = {lane: LANE}
    inside = set()
    for op in ops:
        inside.update(op.results)
        if len(op.results) != 1 or op.regions:
            continue
        operands = [
            forms.get(v) if v in inside or v is lane else _outside(v, lanes) for v in op.operands
        ]
        if any(f is None for f in operands):
            continue
        form = _form(op, operands, lanes)
        if form is not None:
            forms[op.result] = form
    return forms


def vector_accesses(ops: list[Operation], lane: Value, lanes: int, aligned: set[str]) -> list:
    """The `mem.load`s and `mem.store`s among `ops` that may go as vectors of `lanes`: of a
    buffer the launch found aligned, at an offset stepping by one element per lane, under a mask
    uniform or convex across the lanes. A vector load runs before the lanes and a vector store
    after them, so a load must not follow a write to memory, nor a store precede a read of it."""
    forms = lane_forms(ops, lane, lanes)
    reads = [i for i, op in enumerate(ops) if _touches(op, _READS)]
    found, wrote = [], False
    for i, op in enumerate(ops):
        candidate = op.name in ("mem.load", "mem.store") and op.operands[0].name in aligned
        if op.name == "mem.load":
            candidate = candidate and not wrote
        elif op.name == "mem.store":
            candidate = candidate and not any(j > i for j in reads)
        wrote = wrote or _touches(op, BUFFER_WRITES)
        if not candidate:
            continue
        offset, masks = op.operands[1], op.operands[2 if op.name == "mem.load" else 3 :]
        step = forms.get(offset)
        if isinstance(step, Form) and step.step == 1 and all(forms.get(m) for m in masks):
            found.append(op)
    return found


def _touches(op: Operation, names: frozenset[str]) -> bool:
    return any(inner.name in names for inner in op.walk())


def lane_count(loops: list[Operation], aligned: set[str], most: int, threads: int) -> int:
    """How many consecutive positions each thread takes in every element loop: the most that
    `most` bytes of the narrowest aligned buffer hold, halved until some loop of a multiple of
    that many positions, enough to keep all `threads` busy, has an access that may go as a
    vector; 1 where none has."""
    sizes = [
        storage_width(op.operands[0].type.dtype) // 8
        for loop in loops
        for op in loop.walk()
        if op.name in ("mem.load", "mem.store") and op.operands[0].name in aligned
    ]
    lanes = most // min(sizes, default=most)
    while lanes > 1:
        for loop in loops:
            extent = constant_value(loop.operands[0])
            body = loop.regions[0].block
            fits = isinstance(extent, int) and extent % lanes == 0 and extent // lanes >= threads
            if fits and vector_accesses(body.ops, body.args[0], lanes, aligned):
                return lanes
        lanes //= 2
    return 1


def _form(op: Operation, x: list[Form | str], lanes: int) -> Form | str | None:
    name = op.name
    if op.result.type.dtype == "i1":
        if name == "arith.cmp" and all(isinstance(f, Form) for f in x):
            if x[0].step == x[1].step:
                return UNIFORM
            return CONVEX if op.attrs["pred"] in _ORDERED else None
        if name == "arith.and" and all(f in (UNIFORM, CONVEX) for f in x):
            return CONVEX if CONVEX in x else UNIFORM
        return None
    if op.result.type.dtype != "index" or not all(isinstance(f, Form) for f in x):
        return None
    if name == "arith.constant":
        return _constant(op.attrs["value"], lanes)
    if name == "arith.add" and x[0].step + x[1].step <= 1:
        return Form(x[0].step + x[1].step, x[0].aligned and x[1].aligned, _both_nonnegative(x))
    if name == "arith.sub" and x[0].step - x[1].step in (0, 1):
        return Form(x[0].step - x[1].step, x[0].aligned and x[1].aligned, False)
    if name == "arith.mul":
        for form, other in ((x[0], op.operands[1]), (x[1], op.operands[0])):
            if constant_value(other) == 1:
                return form
        if x[0].step == x[1].step == 0:
            return Form(0, x[0].aligned or x[1].aligned, _both_nonnegative(x))
        return None
    if name in ("arith.idiv", "arith.irem"):
        divisor = constant_value(op.operands[1])
        if not (isinstance(divisor, int) and divisor > 0):
            return None
        if x[0].step == 0:
            return Form(0, False, x[0].nonnegative)
        if x[0].aligned and x[0].nonnegative and divisor % lanes == 0:
            return Form(0, False, True) if name == "arith.idiv" else LANE
    return None


def _both_nonnegative(x: list[Form]) -> bool:
    return x[0].nonnegative and x[1].nonnegative


def _constant(value: object, lanes: int) -> Form | None:
    if not isinstance(value, int):
        return None
    return Form(0, value % lanes == 0, value >= 0)


def _outside(value: Value, lanes: int, depth: int = 8) -> Form | str | None:
    """The uniform form of a value the body does not compute: what its definition shows of its
    divisibility and sign, a few ops deep."""
    dtype = getattr(value.type, "dtype", None)
    if dtype == "i1":
        return UNIFORM
    if dtype != "index":
        return None
    op = defining_op(value)
    loop = loop_of_induction_variable(value) if op is None and depth > 0 else None
    if loop is not None:
        # a counter from a lower bound up: at least 0 where the bound and the step are
        bound, _, step = (_outside(v, lanes, depth - 1) for v in loop.operands[:3])
        return Form(0, False, bound.nonnegative and step.nonnegative)
    if op is None or depth == 0:
        return Form(0, False, False)
    if op.name == "arith.constant":
        return _constant(op.attrs["value"], lanes) or Form(0, False, False)
    if op.name in _NONNEGATIVE_IDS:
        return Form(0, False, True)
    if op.name in ("arith.add", "arith.mul") and len(op.operands) == 2:
        a, b = (_outside(v, lanes, depth - 1) for v in op.operands)
        if op.name == "arith.add":
            return Form(0, a.aligned and b.aligned, _both_nonnegative([a, b]))
        return Form(0, a.aligned or b.aligned, _both_nonnegative([a, b]))
    return Form(0, False, False)
