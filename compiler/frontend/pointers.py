"""Pointers into a parameter's memory, as an application writes them in Triton's style:
`x.source.data_ptr() + offsets`, then `ntl.load`, `ntl.store` or `ntl.atomic_add` on them.

A pointer is the parameter's buffer and element offsets (an int or an index value); nothing of it
reaches the IR but the `mem.*` op that reads or writes through it.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.errors import CompileError
from compiler.frontend.access import Param
from compiler.frontend.arith import Arith
from compiler.ir.builder import broadcast_shape
from compiler.ir.core import Value
from compiler.ir.types import is_integer


@dataclass(frozen=True)
class Pointer:
    param: Param
    offsets: object = 0  # an int or an integer value (a tile for a block of pointers)

    def moved(self, arith: Arith, by: object, sign: int = 1) -> Pointer:
        if isinstance(by, Pointer | float):
            raise CompileError("a pointer moves by integer offsets: write ptr + offsets")
        step = by if sign > 0 else arith.binary("arith.sub", 0, by)
        return Pointer(self.param, arith.binary("arith.add", self.offsets, step))

    def address(self, arith: Arith, *shaped: Value) -> tuple[Value, list[Value]]:
        """The buffer offsets as `index` values and `shaped` (a value, a mask), broadcast to one
        shape."""
        offsets = arith.as_value(self.offsets)
        if not is_integer(offsets.type.dtype):
            raise CompileError(f"pointer offsets must be integers, got {offsets.type}")
        offsets = arith.cast(offsets, "index")
        shape = broadcast_shape(offsets.type, *(v.type for v in shaped))
        return arith.b.broadcast_to(offsets, shape), [
            arith.b.broadcast_to(v, shape) for v in shaped
        ]


@dataclass(frozen=True)
class SourceElements:
    """`x.source[i, j]`: the source's elements at integer indices (tiles of them gather or
    scatter), through a pointer, masked to the source's bounds as NineToothed masks them."""

    pointer: Pointer
    mask: Value


def source_elements(arith: Arith, param: Param, sizes: list, indices: tuple) -> SourceElements:
    """`param`'s source at `indices`, one per dimension; `sizes` are its sizes as values."""
    if param.offsets is not None:
        raise CompileError(
            f"{param.name} is jagged, and its source cannot be indexed directly yet; load its "
            "tiles through the arrangement instead"
        )
    if len(indices) != len(sizes):
        raise CompileError(
            f"{param.name}.source has {len(sizes)} dimension(s) and takes one index for each, got "
            f"{len(indices)}; write {param.name}.source[{', '.join(['i'] * len(sizes))}]"
        )
    offsets, mask = 0, True
    for index, size, stride in zip(indices, sizes, param.strides, strict=True):
        if isinstance(index, slice) or index is None:
            raise CompileError(
                f"{param.name}.source takes integer indices (tiles of them gather), not slices"
            )
        offsets = arith.binary("arith.add", offsets, arith.binary("arith.mul", index, stride))
        inside = arith.binary(
            "arith.and", arith.compare("ge", index, 0), arith.compare("lt", index, size)
        )
        mask = inside if mask is True else arith.binary("arith.and", mask, inside)
    return SourceElements(Pointer(param, offsets), arith.as_value(mask))
