"""Structured control flow: values an `scf.for` or `scf.while` carries and results of an `scf.if`
live in arrays (one-element cells for scalars: targets like TIR have no re-assignable variables).
A part of `TileLowering` (`lowering.py`), whose state it uses."""

from __future__ import annotations

from compiler.ir import (
    Block,
    Builder,
    Operation,
    Region,
    ScalarType,
    TileType,
    Value,
)
from compiler.passes.hardware_dependent.lower_tiles_to_loops.reductions import COMBINE


class ControlFlow:
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

    def while_loop(self, b: Builder, op: Operation) -> None:
        """Carried values live in arrays, as an `scf.for`'s; the condition reads them too."""
        condition, body = (region.block for region in op.regions)
        cells = []
        for init, arg in zip(op.operands, body.args, strict=True):
            if isinstance(arg.type, TileType):
                self.fill(b, arg, lambda inner, index, v=init: self.elements.at(inner, v, index))
                cells.append(self.arrays[arg])
            else:
                cells.append(self.scalar_cell(b, arg, self.scalars[init]))
        new_condition, new_body = Block(), Block()
        b.create("scf.while", [], {}, [], [Region([new_condition]), Region([new_body])])
        for old, new in ((condition, new_condition), (body, new_body)):
            with b.at_end_of(new):
                for arg, cell in zip(old.args, cells, strict=True):
                    self.held(b, arg, cell)

        def on_check(inner: Builder, yielded: list[Value]) -> list[Value]:
            return [self.scalars[yielded[0]]]

        def on_yield(inner: Builder, yielded: list[Value]) -> None:
            self.refresh(inner, list(zip(body.args, yielded, cells, strict=True)))

        self.block(condition, new_condition, on_check)
        self.block(body, new_body, on_yield)
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
