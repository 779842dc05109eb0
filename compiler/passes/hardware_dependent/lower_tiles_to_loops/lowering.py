"""The lowering itself: `TileLowering` walks the kernel, keeping for every tile the array
that holds it (`arrays`) and for every scalar its new value (`scalars`), and turns each op into
scalar code in loops over elements. Its parts, one file each: `box_copies.py`, `dots.py`,
`reductions.py` and `control_flow.py`; the elements of a tile computed where used are
`tile_elements.py`'s."""

from __future__ import annotations

import math
from collections.abc import Callable

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
from compiler.passes.base import PassError
from compiler.passes.hardware_dependent.lower_tiles_to_loops.box_copies import BoxCopies
from compiler.passes.hardware_dependent.lower_tiles_to_loops.control_flow import ControlFlow
from compiler.passes.hardware_dependent.lower_tiles_to_loops.dots import Dots
from compiler.passes.hardware_dependent.lower_tiles_to_loops.read_again import holds_read_again
from compiler.passes.hardware_dependent.lower_tiles_to_loops.reductions import COMBINE, Reductions
from compiler.passes.hardware_dependent.lower_tiles_to_loops.tile_elements import Elements
from compiler.passes.helpers.ranges import ValueRanges
from compiler.passes.helpers.rewrite import defining_op

# Ops whose result is their operand's elements in the same row-major order.
_SAME_ORDER = frozenset({"tile.reshape", "tile.expand_dims"})


def shape_attr(shape: tuple[int, ...]) -> dict:
    """A tile's shape as an attribute, for what holds or walks it; none for a 1-D tile, which
    its flat size says."""
    return {"shape": list(shape)} if len(shape) > 1 else {}


class TileLowering(ControlFlow, Dots, Reductions, BoxCopies):
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

    def block(self, old: Block, new: Block, on_yield: Callable | None) -> None:
        b = Builder(new)
        self.elements.memo = self.elements.memo.new_child()
        for op in old.ops:
            if op.name == "scf.yield":
                kept = on_yield(b, op.operands) if on_yield is not None else None
                b.create("scf.yield", kept or [])
            else:
                self.op(b, op)
        self.elements.memo = self.elements.memo.parents

    def op(self, b: Builder, op: Operation) -> None:
        tiles_in = any(isinstance(v.type, TileType) for v in op.operands)
        tiles_out = any(isinstance(v.type, TileType) for v in op.results)
        if op.name == "scf.for":
            self.loop(b, op)
        elif op.name == "scf.while":
            self.while_loop(b, op)
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

    def alloc(self, dtype: str, size: int, scope: str | None = None, **extra) -> Value:
        attrs = {"dtype": dtype, "size": size, "scope": scope or self.scope}
        return Builder(self.allocs).create("mem.alloc", [], attrs | extra).result

    def tile_array(self, dtype: str, shape: tuple[int, ...]) -> Value:
        """An array for a tile of `shape`, which it records where the tile has several dims (a
        target with 2-D scopes lays the array out as the tile)."""
        return self.alloc(dtype, math.prod(shape), **shape_attr(shape))

    def parallel(self, b: Builder, shape: tuple[int, ...], body: Callable) -> None:
        """`body(builder, index, position)` for every element of `shape`, in an scf.parallel that
        records the shape (a target may run the elements as a nest of its dims)."""
        extent = self.elements.constant(b, math.prod(shape))
        position = Value(ScalarType("index"))
        block = Block([position])
        b.create("scf.parallel", [extent], shape_attr(shape), [], [Region([block])])
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

    def store(self, b: Builder, op: Operation) -> None:
        buffer, offsets, value, *mask = op.operands
        if self.store_box(b, op):
            return

        def body(inner: Builder, index: tuple, position: Value) -> None:
            parts = [self.elements.at(inner, v, index) for v in (offsets, value, *mask)]
            inner.create("mem.store", [self.scalars[buffer], *parts], dict(op.attrs))

        self.parallel(b, offsets.type.shape, body)

    def atomic(self, b: Builder, op: Operation) -> None:
        """Element by element, like a store; the old values are held like a load's."""
        buffer, *elementwise = op.operands  # offsets, value, and a mask or what cas compares with

        def element(inner: Builder, index: tuple) -> Value:
            parts = [self.elements.at(inner, v, index) for v in elementwise]
            return inner.create("mem.atomic", [self.scalars[buffer], *parts], dict(op.attrs)).result

        self.fill(b, op.result, element)

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
