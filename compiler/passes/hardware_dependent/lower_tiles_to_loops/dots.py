"""Dots: a loop per result element, or, where the target's `array_dot` takes the dot
(`helpers/array_dot.py`), one block-wide `mem.dot` over its operands' arrays, summing into a
carried array in place where a loop only adds the dot to it (`rescaled_sums.py` for a sum the
loop rescales first). A part of `TileLowering` (`lowering.py`), whose state it uses."""

from __future__ import annotations

from collections.abc import Mapping

from compiler.ir import Builder, Operation, Value
from compiler.passes.hardware_dependent.lower_tiles_to_loops.rescaled_sums import rescales
from compiler.passes.helpers.array_dot import takes, warps_split


class Dots:
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
