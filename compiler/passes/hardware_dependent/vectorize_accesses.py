"""ssa.vectorize_accesses: a thread's lanes (the `scf.for {lanes}` ssa.lower_parallel makes) load
and store as one vector each where they can, element by element where they cannot.

For each access `helpers/lanes.py` finds vectorizable, the loop's body is evaluated at the
first and the last lane (clones of the ops the access's offset and mask come from). Where the
mask holds at both (so in every lane) and the first offset is a multiple of the lanes (the buffer
itself the launch found aligned), the access is one `mem.load_lanes` before the lanes, into a
thread-local array the lanes read, or one `mem.store_lanes` after them, of the array the lanes
wrote; otherwise the same loads or stores as before run lane by lane. Both arms are IR, so the
reference interpreter runs them as the target does.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Block, Builder, Kernel, Operation, Region, Value
from compiler.passes.base import Pass, PassContext
from compiler.passes.helpers.lanes import vector_accesses
from compiler.passes.helpers.rewrite import builder_before, replace_op
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class VectorizeAccesses(Pass):
    name = "ssa.vectorize_accesses"
    category = "hardware-dependent"
    description = (
        "loads and stores of a thread's lanes as one vector each where the mask holds in all "
        "of them and the offset is aligned, lane by lane otherwise"
    )

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return bool(_lane_loops(kernel))

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        aligned = set(kernel.attrs.get("aligned") or ())
        loops = _lane_loops(kernel)
        if not loops:
            return False
        # the lanes' array is the thread's own, as its scalars are
        scope = ctx.require_target(self.name).memory_scopes.get("scalar", "local")
        changed = False
        for loop in loops:
            body = loop.regions[0].block
            for access in vector_accesses(body.ops, body.args[0], loop.attrs["lanes"], aligned):
                _Vector(kernel, loop, access, scope).rewrite()
                changed = True
        return changed


def _lane_loops(kernel: Kernel) -> list[Operation]:
    """The loops over a thread's lanes (ssa.lower_parallel's `scf.for {lanes}`)."""
    return [op for op in kernel.walk() if op.name == "scf.for" and "lanes" in op.attrs]


class _Vector:
    def __init__(self, kernel: Kernel, loop: Operation, access: Operation, scope: str):
        self.kernel, self.loop, self.access = kernel, loop, access
        self.lanes = loop.attrs["lanes"]
        self.body = loop.regions[0].block
        self.lane = self.body.args[0]
        self.loading = access.name == "mem.load"
        buffer = access.operands[0]
        alloc = Builder(kernel.body)
        alloc.index = 0
        attrs = {"dtype": buffer.type.dtype, "size": self.lanes, "scope": scope}
        self.array = alloc.create("mem.alloc", [], attrs).result

    def rewrite(self) -> None:
        """The vector arm and the lane-by-lane arm next to the lanes; in them, the access
        becomes a read or a write of the array."""
        access, lane = self.access, self.lane
        if self.loading:
            b = builder_before(self.loop)
        else:
            b = Builder(self.loop.parent)
            b.index = self.loop.parent.ops.index(self.loop) + 1
        roots = access.operands[1:2] + access.operands[2 if self.loading else 3 :]
        first = self._at(b, roots, b.constant(0, "index"))
        last = self._at(b, roots, b.constant(self.lanes - 1, "index"))
        lanes = b.constant(self.lanes, "index")
        offset = first.get(roots[0], roots[0])
        remainder = b.value("arith.irem", offset, lanes)
        condition = b.value("arith.cmp", remainder, b.constant(0, "index"), pred="eq")
        for mask in roots[1:]:
            both = b.value("arith.and", first.get(mask, mask), last.get(mask, mask))
            condition = b.value("arith.and", condition, both)
        vector, scalar = Block(), Block()
        buffer, array = access.operands[0], self.array
        operands = [buffer, offset, array] if self.loading else [array, buffer, offset]
        name = "mem.load_lanes" if self.loading else "mem.store_lanes"
        Builder(vector).create(name, operands, {"lanes": self.lanes})
        Builder(vector).create("scf.yield", [])
        self._lane_by_lane(Builder(scalar))
        Builder(scalar).create("scf.yield", [])
        b.create("scf.if", [condition], {}, [], [Region([vector]), Region([scalar])])
        at = builder_before(access)
        if self.loading:
            replace_op(self.kernel, access, [at.value("mem.read", array, lane)])
        else:
            at.create("mem.write", [array, lane, access.operands[2]])
            replace_op(self.kernel, access, [])

    def _lane_by_lane(self, b: Builder) -> None:
        """for lane in 0 .. lanes-1: the access as it was, through the array."""
        lane = Value(self.lane.type)
        loop = Block([lane])
        one = b.constant(1, "index")
        b.create(
            "scf.for",
            [b.constant(0, "index"), b.constant(self.lanes, "index"), one],
            {},
            [],
            [Region([loop])],
        )
        inner = Builder(loop)
        access = self.access
        if self.loading:
            values = self._at(inner, access.operands, lane, include=access)
            inner.create("mem.write", [self.array, lane, values[access.result]])
        else:
            roots = access.operands[1:2] + access.operands[3:]
            values = self._at(inner, roots, lane)
            values[access.operands[2]] = inner.value("mem.read", self.array, lane)
            operands = [values.get(v, v) for v in access.operands]
            inner.create(access.name, operands, dict(access.attrs))
        inner.create("scf.yield", [])

    def _at(
        self, b: Builder, roots: list[Value], lane: Value, include: Operation | None = None
    ) -> dict[Value, Value]:
        """Clones, at `b`, of the body ops `roots` come from (and of `include`), with `lane`
        for the lane: the values they give, by the body's values."""
        defined = {r: op for op in self.body.ops for r in op.results}
        needed, stack = set(), list(roots)
        while stack:
            op = defined.get(stack.pop())
            if op is not None and op not in needed:
                needed.add(op)
                stack.extend(op.operands)
        values = {self.lane: lane}
        for op in self.body.ops:
            if op in needed or op is include:
                operands = [values.get(v, v) for v in op.operands]
                types = [r.type for r in op.results]
                clone = b.create(op.name, operands, dict(op.attrs), types)
                values.update(zip(op.results, clone.results, strict=True))
        return values
