"""ssa.legalize_argument_dtypes: kernel arguments of element types the target cannot take.

A target may list the element types its buffer arguments take (`buffer_dtypes`) and those its
scalar arguments take (`scalar_dtypes`); every type when a list is absent.

- A buffer of another type becomes a buffer of the first same-width type on the list (a bool is a
  byte, as in torch): each load is converted back to the program's type and each value stored is
  converted to the buffer's, by value for bools and bit for bit otherwise. The kernel records the
  caller's type per such buffer (`buffer_views`); the launch passes the tensor viewed as the
  buffer's type, which reads the same bytes.
- A scalar of another type becomes one of the narrowest listed type that holds all its values
  (an f16 as an f32, a u16 as an i32), converted back at the kernel's entry; the caller's number
  is passed as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.ir import BufferType, Builder, Kernel, Operation, ScalarType, Value
from compiler.ir.interpreter import NUMPY_DTYPES
from compiler.ir.types import BIT_WIDTHS, is_float, storage_width
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.helpers.constants import make_constant
from compiler.passes.helpers.rewrite import builder_before, replace_op
from compiler.passes.registry import register

# Candidates, narrowest first; among equals integers first, since integers hold any bits unchanged.
CANDIDATES = ("i8", "u8", "i16", "u16", "f16", "bf16", "i32", "u32", "f32", "i64", "u64", "f64")


def _accepted(arg: Value, target) -> frozenset[str] | None:
    """The element types the target takes for `arg`, when its own is not one of them."""
    is_buffer = isinstance(arg.type, BufferType)
    accepted = target.capability("buffer_dtypes" if is_buffer else "scalar_dtypes")
    dtype = arg.type.dtype
    if accepted is None or dtype in accepted or dtype == "index":
        return None
    return accepted


def holds(wide: str, narrow: str) -> bool:
    """Whether every value of `narrow` is a value of `wide`."""
    if is_float(narrow) or is_float(wide):
        return is_float(narrow) and is_float(wide) and BIT_WIDTHS[wide] > BIT_WIDTHS[narrow]
    if narrow == "i1":
        return True
    if narrow.startswith("u"):
        unsigned = wide.startswith("u") and BIT_WIDTHS[wide] >= BIT_WIDTHS[narrow]
        return unsigned or BIT_WIDTHS[wide] > BIT_WIDTHS[narrow]
    return wide.startswith("i") and BIT_WIDTHS[wide] >= BIT_WIDTHS[narrow]


@register
@dataclass(frozen=True)
class LegalizeArgumentDtypes(Pass):
    name = "ssa.legalize_argument_dtypes"
    category = "hardware-dependent"
    description = "give arguments of element types the target cannot take a type it can"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        """An argument to give another type, or the views an earlier pass recorded to rewrite."""
        target = ctx.require_target(self.name)
        views = kernel.attrs.get("buffer_views")
        return bool(views) or any(_accepted(arg, target) is not None for arg in kernel.args)

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        target = ctx.require_target(self.name)
        changed = False
        views = dict(kernel.attrs.get("buffer_views") or [])
        for arg in list(kernel.args):
            accepted = _accepted(arg, target)
            if accepted is None:
                continue
            dtype, is_buffer = arg.type.dtype, isinstance(arg.type, BufferType)
            if is_buffer:
                same_width = (d for d in CANDIDATES if storage_width(d) == storage_width(dtype))
                _retype_buffer(kernel, arg, self._choose(same_width, accepted, target, arg))
                views[arg.name] = dtype
            else:
                wider = (d for d in CANDIDATES if holds(d, dtype))
                _widen_scalar(kernel, arg, self._choose(wider, accepted, target, arg))
            changed = True
        if views:
            kernel.attrs["buffer_views"] = [[name, dtype] for name, dtype in sorted(views.items())]
        return changed

    def _choose(self, candidates, accepted: frozenset[str], target, arg: Value) -> str:
        chosen = next((d for d in candidates if d in accepted), None)
        if chosen is None:
            raise PassError(
                f"{self.name}: target {target.name} takes no {arg.type} stand-in for argument "
                f"%{arg.name} (it takes {', '.join(sorted(accepted))}); convert the argument"
            )
        return chosen


def _retype_buffer(kernel: Kernel, arg: Value, storage: str) -> None:
    arg.type = BufferType(storage)
    for op in list(kernel.walk()):
        if op.operands and op.operands[0] is arg:
            if op.name == "mem.load":
                _convert_load(kernel, op)
            elif op.name == "mem.store":
                _convert_store(op)
            elif op.name == "mem.atomic":
                raise PassError(
                    f"ssa.legalize_argument_dtypes: @{kernel.name} updates %{arg.name} atomically, "
                    f"and the target takes no {arg.type.dtype} buffers; use another element type"
                )


def _widen_scalar(kernel: Kernel, arg: Value, wide: str) -> None:
    """The argument arrives as `wide`; the body keeps its own type through one cast at entry."""
    narrow = Value(arg.type)
    kernel.replace_uses(arg, narrow)
    arg.type = ScalarType(wide)
    builder = Builder(kernel.body)
    builder.index = 0
    cast = builder.create("arith.cast", [arg], {"dtype": narrow.type.dtype}).result
    kernel.replace_uses(narrow, cast)


def _convert_load(kernel: Kernel, op: Operation) -> None:
    """Load the buffer's type, then convert to the program's for every user."""
    wanted = op.result.type.dtype
    attrs = dict(op.attrs)
    if "other" in attrs:
        attrs["other"] = _bits(attrs["other"], wanted, op.operands[0].type.dtype)
    builder = builder_before(op)
    loaded = builder.create("mem.load", op.operands, attrs).result
    if wanted == "i1":
        zero = make_constant(builder, 0, loaded.type)
        converted = builder.value("arith.cmp", loaded, zero, pred="ne")
    else:
        converted = builder.value("arith.bitcast", loaded, dtype=wanted)
    replace_op(kernel, op, [converted])


def _convert_store(op: Operation) -> None:
    """Store the value converted to the buffer's type."""
    storage = op.operands[0].type.dtype
    value = op.operands[2]
    convert = "arith.cast" if value.type.dtype == "i1" else "arith.bitcast"
    op.operands[2] = builder_before(op).value(convert, value, dtype=storage)


def _bits(value: object, dtype: str, storage: str) -> object:
    """A masked load's `other`, given in the program's type, as the buffer's bits."""
    if dtype == "i1":
        return int(bool(value))
    if dtype == "bf16":  # the top half of the f32 (the values `other` takes are exact there)
        word = int(np.array(value, np.float32).view(np.uint32)) >> 16
        return np.array(word, np.uint16).view(NUMPY_DTYPES[storage]).item()
    return np.array(value, NUMPY_DTYPES[dtype]).view(NUMPY_DTYPES[storage]).item()
