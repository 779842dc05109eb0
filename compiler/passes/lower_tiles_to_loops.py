"""ssa.lower_tiles_to_loops: for a target without tile values (capability `value_semantics` false),
every tile becomes scalar code in loops over its elements.

A tile is either held in a 1-D array (`mem.alloc`, element (i, j) of [M, N] at i*N + j, which
records the tile's `shape` for targets that lay arrays out so) or
computed per element where it is used (see `tile_elements.py`). Held in arrays: loads (so they run
in program order, before later stores), reductions and dots (each element is a loop), values
carried by `scf.for` and results of `scf.if` (targets like TIR have no re-assignable variables, so
carried scalars get a one-element array too). Everything else is recomputed inside the loop of the
value that uses it, so a chain of elementwise ops becomes one loop with scalar temporaries; but a
tile whose element costs a math function and is read more than once is held, each element
computed once (`read_again.py`: a row's scale spread across its row, a numerator both summed and
divided), if it has at most the target's `held_elements` (no bound by default).

A reduction along more than one element whose dtype the target's `array_reduce` capability
(`{"dtypes": [...], "max_elements": n}`) names becomes one block-wide `mem.reduce` of its source's
array, viewed [outer, length, inner], where the source is held in an array or has at most n
elements to fill one with.
A dot the target's `array_dot` capability takes (a block-wide routine, such as tensor cores:
`array_dot.py`) becomes one `mem.dot` over its operands' arrays instead of a loop per element.
Where a loop only ever adds such a dot to a tile it carries (`acc += dot(a, b)`), the `mem.dot`
sums into the carried array in place (`accumulate`), kept in the target's `accumulator` scope for
the whole loop when it has one: no sum array per iteration, no elementwise add. Where the target
addresses the accumulator's elements, the carried tile lives there, filled with its init and
read by what follows the loop, with no array copied in and out. So does a sum the
loop rescales element by element before adding the dot (`rescaled_sums.py`), where the target
addresses the accumulator's elements (`accumulator_elements`); where it addresses only each
thread's own (`accumulator_slots`: ssa.lower_parallel walks them), the rescale still overwrites
the accumulator in place, and the sum is copied in before the loop and out after. A tile computed
before a loop that a block-wide op in it takes whole (a scaled operand) is filled once,
before the loop, not recomputed into its array in every iteration.

Where the target copies boxes block-wide (capability `box_copy`: `mem.copy_box_in` and
`mem.copy_box_out`), tiles that block-wide ops take or make move so: a load only dots read whose
access is a box (`boxes.py`) fills its array (kept [rows, columns] for the target: `shape`) with
one `mem.copy_box_in`, and a store of a tile held in an array a block-wide op wrote is one
`mem.copy_box_out`. An access's guards fold into its first dim (its base moved to its size: every
element out of bounds).

Each other array fill and store is an `scf.parallel` over the tile's elements (with the tile's
`shape`, which a target may run as a nest of its dims); whether a target
runs those serially or across threads is `ssa.lower_parallel`'s business. Arrays are declared at
the top of the kernel with the target's `memory_scopes["tile"]` scope.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from compiler.ir import (
    Block,
    Builder,
    Kernel,
    Operation,
    Region,
    ScalarType,
    TileType,
    Value,
)
from compiler.passes.array_dot import takes, warps_split
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.boxes import Box, find_box
from compiler.passes.ranges import ValueRanges
from compiler.passes.read_again import holds_read_again
from compiler.passes.registry import register
from compiler.passes.rescaled_sums import rescales
from compiler.passes.rewrite import defining_op
from compiler.passes.tile_elements import Elements

COMBINE = {"reduce.sum": "arith.add", "reduce.max": "arith.max", "reduce.min": "arith.min"}
# Ops whose result is their operand's elements in the same row-major order.
_SAME_ORDER = frozenset({"tile.reshape", "tile.expand_dims"})
# The tile-level ops this pass turns into loops. A target without tile values takes these and no
# other tile-level op: a sort, a gather or a scan is decomposed before, by
# ssa.lower_backend_intrinsics.
LOWERED_OPS = frozenset(
    {"tile.arange", "tile.broadcast", "tile.expand_dims", "tile.trans", "tile.reshape"}
    | {"linalg.dot", *COMBINE}
)


@register
@dataclass(frozen=True)
class LowerTilesToLoops(Pass):
    name = "ssa.lower_tiles_to_loops"
    category = "hardware-dependent"
    description = "targets without tile values: tiles become arrays and loops of scalar ops"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        target = ctx.require_target(self.name)
        if target.capability("value_semantics", True):
            return False
        scope = target.memory_scopes.get("tile")
        if scope is None:
            raise PassError(
                f"{self.name}: target {target.name} has no memory scope for tiles; add "
                "memory_scopes['tile'] (e.g. 'local' or 'shared') to its record"
            )
        # Scalars that change (carried, branch results) are computed alike by every thread of a
        # program, so each thread may keep its own copy.
        cell_scope = target.memory_scopes.get("scalar", scope)
        changed = _has_tiles_or_cells(kernel)
        _Lowering(self.name, kernel, target, scope, cell_scope).run()
        return changed


def _shape_attr(shape: tuple[int, ...]) -> dict:
    """A tile's shape as an attribute, for what holds or walks it; none for a 1-D tile, which
    its flat size says."""
    return {"shape": list(shape)} if len(shape) > 1 else {}


def _has_tiles_or_cells(kernel: Kernel) -> bool:
    """Whether the lowering changes `kernel`: every tile turns into arrays and scalars (no tile type
    is left to print), a value carried by `scf.for` or a result of `scf.if` gets a cell (a new
    `mem.alloc`); every other op is copied as it is, so without either the IR prints the same."""
    for op in kernel.walk():
        if op.name in ("scf.for", "scf.if") and op.results:
            return True
        for value in (*op.operands, *op.results):
            if isinstance(value.type, TileType):
                return True
    return False


class _Lowering:
    def __init__(self, pass_name: str, kernel: Kernel, target, scope: str, cell_scope: str):
        self.pass_name = pass_name
        self.array_dot = target.capability("array_dot") or {}
        self.array_reduce = target.capability("array_reduce") or {}
        self.box_copy = bool(target.capability("box_copy"))
        self.held_elements = target.capability("held_elements") or math.inf
        self.warps = kernel.attrs.get("num_warps") or 1
        self.ranges = ValueRanges(kernel)
        self.readers: dict[Value, list[Operation]] = {}  # one entry per operand slot
        for op in kernel.walk():
            for value in op.operands:
                self.readers.setdefault(value, []).append(op)
        # Arrays a block-wide op (mem.dot, mem.copy, mem.reduce) writes.
        self.block_written: set[Value] = set()
        self.kernel = kernel
        self.scope = scope
        self.cell_scope = cell_scope
        self.scalars: dict[Value, Value] = {arg: arg for arg in kernel.args}
        self.arrays: dict[Value, Value] = {}
        self.elements = Elements(pass_name, self.scalars, self.arrays)
        self.allocs = Block()
        # linalg.dot -> the array it sums into in place (see `accumulated_dots`), and the
        # rescaled sum it adds to where the loop rescales it first
        self.in_place: dict[Operation, Value] = {}
        self.rescaled: dict[Operation, Value] = {}

    def run(self) -> None:
        body = Block()
        self.block(self.kernel.body, body, on_yield=None)
        body.ops[:0] = self.allocs.ops
        for op in body.ops:
            op.parent = body
        self.kernel.body = body

    def fail(self, op: Operation, problem: str) -> PassError:
        return PassError(f"{self.pass_name}: {op.name} in @{self.kernel.name} {problem}")

    # -- blocks and ops ----------------------------------------------------------------------------

    def block(self, old: Block, new: Block, on_yield: Callable | None) -> None:
        b = Builder(new)
        self.elements.memo = self.elements.memo.new_child()
        for op in old.ops:
            if op.name == "scf.yield":
                if on_yield is not None:
                    on_yield(b, op.operands)
                b.create("scf.yield", [])
            else:
                self.op(b, op)
        self.elements.memo = self.elements.memo.parents

    def op(self, b: Builder, op: Operation) -> None:
        tiles_in = any(isinstance(v.type, TileType) for v in op.operands)
        tiles_out = any(isinstance(v.type, TileType) for v in op.results)
        if op.name == "scf.for":
            self.loop(b, op)
        elif op.name == "scf.if":
            self.branch(b, op)
        elif op.name == "mem.store" and tiles_in:
            self.store(b, op)
        elif op.name in COMBINE:
            self.reduce(b, op)
        elif op.name == "linalg.dot":
            self.dot(b, op)
        elif op.name == "mem.atomic" and tiles_in:
            self.atomic(b, op)
        elif (op.name == "mem.load" and tiles_out and not self.load_box(b, op)) or (
            tiles_out and self.holds(op)
        ):
            self.fill(b, op.result, lambda inner, index: self.elements.compute(inner, op, index))
        elif tiles_out:
            pass  # computed per element where it is used
        elif tiles_in:
            raise self.fail(op, "turns a tile into a scalar and has no loop form")
        else:
            operands = [self.scalars[v] for v in op.operands]
            types = [r.type for r in op.results]
            new = b.create(op.name, operands, dict(op.attrs), types)
            self.scalars.update(zip(op.results, new.results, strict=True))

    def holds(self, op: Operation) -> bool:
        """Whether `op`'s tile, computed per element where used otherwise, is held in an array
        to compute each element once: read again (`read_again.py`), and within the target's
        `held_elements` (arrays it fills only to save work)."""
        if math.prod(op.result.type.shape) > self.held_elements:
            return False
        return holds_read_again(op, self.readers, self.arrays.keys())

    # -- arrays and loops over elements ------------------------------------------------------------

    def alloc(self, dtype: str, size: int, scope: str | None = None, **extra) -> Value:
        attrs = {"dtype": dtype, "size": size, "scope": scope or self.scope}
        return Builder(self.allocs).create("mem.alloc", [], attrs | extra).result

    def tile_array(self, dtype: str, shape: tuple[int, ...]) -> Value:
        """An array for a tile of `shape`, which it records where the tile has several dims (a
        target with 2-D scopes lays the array out as the tile)."""
        return self.alloc(dtype, math.prod(shape), **_shape_attr(shape))

    def parallel(self, b: Builder, shape: tuple[int, ...], body: Callable) -> None:
        """`body(builder, index, position)` for every element of `shape`, in an scf.parallel that
        records the shape (a target may run the elements as a nest of its dims)."""
        extent = self.elements.constant(b, math.prod(shape))
        position = Value(ScalarType("index"))
        block = Block([position])
        b.create("scf.parallel", [extent], _shape_attr(shape), [], [Region([block])])
        inner = Builder(block)
        self.elements.memo = self.elements.memo.new_child()
        body(inner, self.elements.delinearize(inner, position, shape), position)
        self.elements.memo = self.elements.memo.parents
        inner.create("scf.yield", [])

    def fill(self, b: Builder, value: Value, element: Callable, array: Value | None = None) -> None:
        """Hold tile `value` in an array (a new one unless given): element i is `element(b, i)`."""
        shape = value.type.shape
        array = array or self.tile_array(value.type.dtype, shape)

        def body(inner: Builder, index: tuple, position: Value) -> None:
            inner.create("mem.write", [array, position, element(inner, index)])

        self.parallel(b, shape, body)
        self.arrays[value] = array

    def scalar_cell(self, b: Builder, value: Value, initial: Value | None) -> Value:
        """A one-element array for a scalar that changes (carried or a branch result)."""
        cell = self.alloc(value.type.dtype, 1, self.cell_scope)
        if initial is not None:
            b.create("mem.write", [cell, self.elements.constant(b, 0), initial])
        return cell

    # -- ops with a loop form ----------------------------------------------------------------------

    def store(self, b: Builder, op: Operation) -> None:
        buffer, offsets, value, *mask = op.operands
        if self.store_box(b, op):
            return

        def body(inner: Builder, index: tuple, position: Value) -> None:
            parts = [self.elements.at(inner, v, index) for v in (offsets, value, *mask)]
            inner.create("mem.store", [self.scalars[buffer], *parts], dict(op.attrs))

        self.parallel(b, offsets.type.shape, body)

    # -- box copies -------------------------------------------------------------------------------

    def load_box(self, b: Builder, op: Operation) -> bool:
        """A load only taken dots read, of a box and zero where masked off: one block copy."""
        buffer, offsets, *mask = op.operands
        readers = self.readers.get(op.result, [])
        if not (self.box_copy and readers and op.attrs.get("other", 0) == 0):
            return False
        if not all(self.dot_reads(reader, op.result) for reader in readers):
            return False
        box = find_box(offsets, mask[0] if mask else None, self.ranges)
        if box is None:
            return False
        shape = list(op.result.type.shape)
        array = self.alloc(op.result.type.dtype, math.prod(shape), shape=shape)
        scalars = self.box_scalars(b, box, shape)
        b.create("mem.copy_box_in", [self.scalars[buffer], *scalars, array], {"shape": shape})
        self.arrays[op.result] = array
        return True

    def store_box(self, b: Builder, op: Operation) -> bool:
        """A store of a box from an array a block-wide op wrote: one block copy."""
        buffer, offsets, value, *mask = op.operands
        array = self.arrays.get(value)
        if not (self.box_copy and array in self.block_written):
            return False
        box = find_box(offsets, mask[0] if mask else None, self.ranges)
        if box is None:
            return False
        shape = list(value.type.shape)
        scalars = self.box_scalars(b, box, shape)
        b.create("mem.copy_box_out", [array, self.scalars[buffer], *scalars], {"shape": shape})
        return True

    def box_scalars(self, b: Builder, box: Box, shape: list[int]) -> list[Value]:
        """The copy's bases, sizes and strides for a tile of `shape`; a dim without a bound
        has its base plus its extent as its size (no index reaches it, and no product of it
        with a stride outgrows the offsets themselves), and the guards move the first base to
        its size where they fail."""
        bases = []
        for terms in box.bases:
            total = self.elements.constant(b, 0)
            for term in terms:
                total = b.value("arith.add", total, self.scalars[term])
            bases.append(total)
        extents = [1] * (len(box.bases) - len(shape)) + list(shape)
        sizes = [
            b.value("arith.add", base, self.elements.constant(b, extent))
            if size is None
            else self.scalars[size]
            for base, size, extent in zip(bases, box.sizes, extents, strict=True)
        ]
        one = self.elements.constant(b, 1)
        strides = [one if stride is None else self.scalars[stride] for stride in box.strides]
        if box.guards:
            guard = self.scalars[box.guards[0]]
            for other in box.guards[1:]:
                guard = b.value("arith.and", guard, self.scalars[other])
            bases[0] = b.value("select.where", guard, bases[0], sizes[0])
        return [*bases, *sizes, *strides]

    def atomic(self, b: Builder, op: Operation) -> None:
        """Element by element, like a store; the old values are held like a load's."""
        buffer, offsets, value, *mask = op.operands

        def element(inner: Builder, index: tuple) -> Value:
            parts = [self.elements.at(inner, v, index) for v in (offsets, value, *mask)]
            return inner.create("mem.atomic", [self.scalars[buffer], *parts], dict(op.attrs)).result

        self.fill(b, op.result, element)

    def reduce(self, b: Builder, op: Operation) -> None:
        """Each result element starts as the first source element along the axis and combines the
        rest in a serial loop (no identity value needed, so integers and floats alike). Where the
        target's `array_reduce` takes the dtype, one block-wide `mem.reduce` of the source's
        array instead."""
        (source,) = op.operands
        axis, length = op.attrs["axis"], source.type.shape[op.attrs["axis"]]
        result = op.result
        shape = result.type.shape or (1,)
        array = self.tile_array(result.type.dtype, shape)
        if self.reduces_whole(source, length):
            dims = source.type.shape
            view = [math.prod(dims[:axis]), length, math.prod(dims[axis + 1 :])]
            kind = op.name.split(".")[1]
            b.create("mem.reduce", [self.array_of(b, source), array], {"kind": kind, "shape": view})
            self.block_written.add(array)
            self.held(b, result, array)
            return

        def body(inner: Builder, index: tuple, position: Value) -> None:
            index = index if result.type.shape else ()

            def at(builder: Builder, k: Value) -> Value:
                return self.elements.at(builder, source, index[:axis] + (k,) + index[axis:])

            inner.create(
                "mem.write", [array, position, at(inner, self.elements.constant(inner, 0))]
            )
            self.accumulate(inner, 1, length, array, position, lambda lb, k: at(lb, k), op)

        self.parallel(b, shape, body)
        self.held(b, result, array)

    def reduces_whole(self, source: Value, length: int) -> bool:
        """Whether the target's `array_reduce` takes a reduction of `source` along `length`
        elements: one of its dtypes, and `source` in an array already or small enough to fill
        one (`max_elements`; a broadcast [n, n] tile that the loop form computes element by
        element is no array to hold)."""
        capability = self.array_reduce
        fits = math.prod(source.type.shape) <= capability.get("max_elements", math.inf)
        return (
            length > 1
            and source.type.dtype in capability.get("dtypes", ())
            and (source in self.arrays or fits)
        )

    def dot(self, b: Builder, op: Operation) -> None:
        left, right = op.operands
        result = op.result
        dtype = result.type.dtype
        if op in self.in_place:
            if op in self.rescaled:
                rescale = self.rescaled[op]
                at = lambda inner, index: self.elements.at(inner, rescale, index)  # noqa: E731
                self.fill(b, rescale, at, self.in_place[op])
            self.array_dot_into(b, op, self.in_place[op], accumulate=True)
            return
        array = self.tile_array(dtype, result.type.shape)
        if self.taken(op):
            # A target may sum in memory of its own (`accumulator` scope), copied out after.
            total = self.accumulator(op) or array
            self.array_dot_into(b, op, total, accumulate=False)
            if total is not array:
                self.copy_whole(b, op, total, array)
            self.arrays[result] = array
            return

        def product(builder: Builder, k: Value, index: tuple) -> Value:
            i, j = index
            factors = [
                self.widen(builder, self.elements.at(builder, v, at), dtype)
                for v, at in ((left, (i, k)), (right, (k, j)))
            ]
            return builder.value("arith.mul", *factors)

        def body(inner: Builder, index: tuple, position: Value) -> None:
            inner.create("mem.write", [array, position, inner.constant(0, dtype)])
            term = lambda builder, k: product(builder, k, index)  # noqa: E731
            self.accumulate(inner, 0, left.type.shape[1], array, position, term, op)

        self.parallel(b, result.type.shape, body)
        self.arrays[result] = array

    def taken(self, dot: Operation) -> bool:
        return takes(self.array_dot, dot) and warps_split(self.array_dot, dot, self.warps)

    def accumulator(self, dot: Operation) -> Value | None:
        """A new array of the target's `accumulator` scope for `dot`'s sum, if it has one."""
        scope = self.array_dot.get("accumulator")
        (m, n), operands = dot.result.type.shape, dot.operands[0].type.dtype
        return (
            self.alloc("f32", m * n, scope, shape=[m, n], operand_dtype=operands) if scope else None
        )

    def array_dot_into(self, b: Builder, dot: Operation, total: Value, accumulate: bool) -> None:
        left, right = dot.operands
        (m, k), n = left.type.shape, right.type.shape[1]
        attrs = {"m": m, "n": n, "k": k, "accumulate": accumulate}
        source = self.untransposed(right)
        if source is not None:
            right, attrs["transpose_b"] = source, True
        operands = [self.array_of(b, left), self.array_of(b, right), total]
        b.create("mem.dot", operands, attrs)
        self.block_written.add(total)

    def untransposed(self, operand: Value) -> Value | None:
        """The tile a dot's right operand transposes, where the target's array dot reads it
        transposed (`array_dot["transposed"]`) and taken dots are all that read the transpose:
        the dot then takes that tile's array, not a transposed copy of it."""
        trans = operand.owner
        if not (self.array_dot.get("transposed") and isinstance(trans, Operation)):
            return None
        readers = self.readers.get(operand, [])
        taken = readers and all(r.name == "linalg.dot" and self.taken(r) for r in readers)
        swapped = trans.name == "tile.trans" and list(trans.attrs["perm"]) == [1, 0]
        if not (swapped and taken) or any(r.operands[0] is operand for r in readers):
            return None
        return trans.operands[0]

    def dot_reads(self, reader: Operation, value: Value) -> bool:
        """Whether `reader` is a taken dot that reads tile `value` whole: an operand of it, or
        the tile a transposed operand of it comes from (`untransposed`)."""
        if reader.name == "tile.trans":
            return self.untransposed(reader.result) is value
        return reader.name == "linalg.dot" and self.taken(reader)

    def copy_whole(self, b: Builder, dot: Operation, source: Value, destination: Value) -> None:
        b.create("mem.copy", [source, destination], {"shape": list(dot.result.type.shape)})
        self.block_written.add(destination)

    def accumulated_dots(self, loop: Operation) -> Mapping[Value, Operation]:
        """Carried tiles the loop only adds a taken dot to (`acc = acc + dot(a, b)` in its body,
        each of the three values used nowhere else), with those dots: the sum can stay in the
        carried array, which the dot then adds to in place. So can a sum the loop rescales
        element by element before adding the dot (`acc * alpha[:, None] + dot(p, v)`:
        `rescaled_sums.py`) where the target reads and writes its accumulator's elements
        (`array_dot["accumulator_elements"]` or `["accumulator_slots"]`, or no accumulator
        scope): the rescale overwrites the array just before the dot (`self.rescaled`)."""
        body = loop.regions[0].block
        _, *carried = body.args
        capability = self.array_dot
        elements = (
            capability.get("accumulator_elements")
            or capability.get("accumulator_slots")
            or not capability.get("accumulator")
        )
        found = {}
        for arg, value in zip(carried, body.ops[-1].operands, strict=True):
            add = value.owner
            if not isinstance(add, Operation) or add.name != "arith.add" or add.parent is not body:
                continue
            for kept, other in (add.operands, add.operands[::-1]):
                dot = other.owner
                if not (
                    isinstance(dot, Operation)
                    and dot.name == "linalg.dot"
                    and dot.parent is body
                    and dot.result.type == arg.type
                    and self.taken(dot)
                    and all(len(self.readers.get(v, ())) == 1 for v in (arg, dot.result, value))
                ):
                    continue
                if kept is arg:
                    found[arg] = dot
                elif elements and rescales(kept, arg, dot, body, self.readers):
                    found[arg], self.rescaled[dot] = dot, kept
                break
        return found

    def array_of(self, b: Builder, value: Value) -> Value:
        """The array holding tile `value` row-major: its own; that of the tile it reshapes (the
        same elements in the same order), for a block-wide op that reads it; or one filled here."""
        source, op = value, defining_op(value)
        while source not in self.arrays and op is not None and op.name in _SAME_ORDER:
            source = op.operands[0]
            op = defining_op(source)
        if source in self.arrays:
            return self.arrays[source]
        self.fill(b, value, lambda inner, index: self.elements.at(inner, value, index))
        return self.arrays[value]

    def accumulate(self, b, start, stop, array, position, term, op) -> None:
        """array[position] = combine(array[position], term(k)) for k in start .. stop-1."""
        combine = COMBINE.get(op.name, "arith.add")
        k = Value(ScalarType("index"))
        body = Block([k])
        lb, ub = self.elements.constant(b, start), self.elements.constant(b, stop)
        one = self.elements.constant(b, 1)
        b.create("scf.for", [lb, ub, one], {}, [], [Region([body])])
        inner = Builder(body)
        self.elements.memo = self.elements.memo.new_child()
        current = inner.value("mem.read", array, position)
        inner.create("mem.write", [array, position, inner.value(combine, current, term(inner, k))])
        self.elements.memo = self.elements.memo.parents
        inner.create("scf.yield", [])

    def widen(self, b: Builder, value: Value, dtype: str) -> Value:
        return value if value.type.dtype == dtype else b.value("arith.cast", value, dtype=dtype)

    def held(self, b: Builder, value: Value, array: Value) -> None:
        """`value` lives in `array`: a tile reads it per element, a scalar reads element 0."""
        if isinstance(value.type, TileType):
            self.arrays[value] = array
        else:
            self.scalars[value] = b.value("mem.read", array, self.elements.constant(b, 0))

    # -- structured control flow -------------------------------------------------------------------

    def loop(self, b: Builder, op: Operation) -> None:
        """Carried values live in arrays: filled from the inits, refreshed from the yield."""
        lb, ub, step = (self.scalars[v] for v in op.operands[:3])
        iv, *carried = op.regions[0].block.args
        accumulated = self.accumulated_dots(op)
        cells, sums = [], {}
        for init, arg in zip(op.operands[3:], carried, strict=True):
            dot = accumulated.get(arg)
            # Where the target addresses its accumulator's elements, the sum lives there from
            # its init to its last reader, with no tile array copied in before and out after.
            home = (
                self.accumulator(dot)
                if dot and self.array_dot.get("accumulator_elements")
                else None
            )
            if isinstance(arg.type, TileType):
                at = lambda inner, index, v=init: self.elements.at(inner, v, index)  # noqa: E731
                self.fill(b, arg, at, home)
                cells.append(self.arrays[arg])
            else:
                cells.append(self.scalar_cell(b, arg, self.scalars[init]))
            if dot is not None:
                sums[arg] = None if home is not None else self.accumulator(dot)
                if sums[arg] is not None:
                    self.copy_whole(b, dot, cells[-1], sums[arg])
                self.in_place[dot] = sums[arg] or cells[-1]
                self.arrays[arg] = self.in_place[dot]  # what a rescale of the sum reads
        for value in self.invariant_block_operands(op):
            self.array_of(b, value)
        new_iv = Value(ScalarType("index"))
        body = Block([new_iv])
        b.create("scf.for", [lb, ub, step], {}, [], [Region([body])])
        self.scalars[iv] = new_iv
        with b.at_end_of(body):
            for arg, cell in zip(carried, cells, strict=True):
                if not isinstance(arg.type, TileType):
                    self.scalars[arg] = b.value("mem.read", cell, self.elements.constant(b, 0))

        def on_yield(inner: Builder, yielded: list[Value]) -> None:
            moves = zip(carried, yielded, cells, strict=True)
            self.refresh(inner, [move for move in moves if move[0] not in accumulated])

        self.block(op.regions[0].block, body, on_yield)
        for arg, cell in zip(carried, cells, strict=True):
            if sums.get(arg) is not None:
                self.copy_whole(b, accumulated[arg], sums[arg], cell)
        for result, cell in zip(op.results, cells, strict=True):
            self.held(b, result, cell)

    def invariant_block_operands(self, loop: Operation) -> list[Value]:
        """Tiles computed before `loop` that a block-wide op in it reads whole (a taken dot's
        operands, a block-wide reduction's source): filled once, before the loop, rather than
        recomputed into an array in every iteration."""
        inside = set()
        for nested in loop.walk():
            inside.update(nested.results)
            inside.update(arg for region in nested.regions for arg in region.block.args)
        found: list[Value] = []
        for nested in loop.walk():
            if nested.name == "linalg.dot" and self.taken(nested):
                left, right = nested.operands
                read = [left, self.untransposed(right) or right]
            elif nested.name in COMBINE:
                (source,) = nested.operands
                length = source.type.shape[nested.attrs["axis"]]
                read = [source] if self.reduces_whole(source, length) else []
            else:
                continue
            fresh = [v for v in read if v not in inside and v not in self.arrays]
            found += [v for v in fresh if isinstance(v.type, TileType) and v not in found]
        return found

    def refresh(self, b: Builder, moves: list[tuple[Value, Value, Value]]) -> None:
        """Write each yielded value into its carried array, all reads before any write (a yielded
        value may read another carried array, as a swap does)."""
        own = {cell for _, _, cell in moves}
        staged = []
        for arg, value, cell in moves:
            if not isinstance(arg.type, TileType):
                staged.append((arg, self.scalars[value], cell))
            elif self.arrays.get(value) is cell:
                continue
            elif value in self.arrays and self.arrays[value] not in own:
                staged.append((arg, self.arrays[value], cell))
            else:
                copy = Value(value.type)
                self.fill(b, copy, lambda inner, index, v=value: self.elements.at(inner, v, index))
                staged.append((arg, self.arrays[copy], cell))
        for arg, source, cell in staged:
            if isinstance(arg.type, TileType):
                self.copy(b, arg.type.shape, source, cell)
            else:
                b.create("mem.write", [cell, self.elements.constant(b, 0), source])

    def copy(self, b: Builder, shape: tuple[int, ...], source: Value, destination: Value) -> None:
        def body(inner: Builder, index: tuple, position: Value) -> None:
            inner.create(
                "mem.write", [destination, position, inner.value("mem.read", source, position)]
            )

        self.parallel(b, shape, body)

    def branch(self, b: Builder, op: Operation) -> None:
        """Results live in arrays that each branch fills from its yield."""
        cells = []
        for result in op.results:
            if isinstance(result.type, TileType):
                cells.append(self.tile_array(result.type.dtype, result.type.shape))
            else:
                cells.append(self.scalar_cell(b, result, None))
        then, otherwise = Block(), Block()
        b.create(
            "scf.if", [self.scalars[op.operands[0]]], {}, [], [Region([then]), Region([otherwise])]
        )

        def on_yield(inner: Builder, yielded: list[Value]) -> None:
            for result, value, cell in zip(op.results, yielded, cells, strict=True):
                if isinstance(result.type, TileType):
                    at = lambda builder, index, v=value: self.elements.at(builder, v, index)  # noqa: E731
                    self.fill(inner, result, at, cell)
                else:
                    zero = self.elements.constant(inner, 0)
                    inner.create("mem.write", [cell, zero, self.scalars[value]])

        self.block(op.regions[0].block, then, on_yield)
        self.block(op.regions[1].block, otherwise, on_yield)
        for result, cell in zip(op.results, cells, strict=True):
            self.held(b, result, cell)
