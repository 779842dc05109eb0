"""Reductions: a serial loop per result element, or one block-wide `mem.reduce` where the
target's `array_reduce` takes it. A part of `TileLowering` (`lowering.py`), whose state it
uses."""

from __future__ import annotations

import math

from compiler.ir import Builder, Operation, Value

COMBINE = {"reduce.sum": "arith.add", "reduce.max": "arith.max", "reduce.min": "arith.min"}


class Reductions:
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
