"""Box copies, for a target that copies boxes block-wide (capability `box_copy`): a load only
dots read whose access is a box (`boxes.py`) fills its array with one `mem.copy_box_in`, and a
store of a tile held in an array a block-wide op wrote is one `mem.copy_box_out`. A part of
`TileLowering` (`lowering.py`), whose state it uses."""

from __future__ import annotations

import math

from compiler.ir import Builder, Operation, Value
from compiler.passes.hardware_dependent.lower_tiles_to_loops.boxes import Box, find_box


class BoxCopies:
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
