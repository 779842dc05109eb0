"""ssa.emulate_fp8: fp8 values on a target that does not compute with them (capability
`fp8_dtypes`: the formats a target takes natively; none when absent).

fp8 is a storage format, as in Triton: math on fp8 values computes in f32, its results rounded
back; then every fp8 value becomes the byte that holds it (a u8):

- `arith.cast` to an fp8 encodes an f32 and from one decodes, by integer ops (`fp8_codec.py`);
- a constant becomes its code, a bitcast to or from an fp8 the bytes themselves;
- ops that only move values (loads, stores, selects, shape ops, loop-carried values) move bytes;
- an fp8 buffer becomes a u8 buffer: the kernel records the caller's type (`buffer_views`) and
  the launch passes the tensor viewed as bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import BufferType, Kernel, Operation, fp8
from compiler.ir.types import FP8_DTYPES, ArrayType, with_dtype
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.hardware_dependent.emulate_fp8.fp8_codec import decode, encode
from compiler.passes.helpers.constants import make_constant
from compiler.passes.helpers.rewrite import builder_before, replace_op
from compiler.passes.helpers.widen import compute_in
from compiler.passes.registry import register

# Ops whose results are some of their operands' values, unread: they move bytes as well.
MOVES = frozenset(
    {
        "mem.load",
        "mem.store",
        "mem.read",
        "mem.write",
        "mem.alloc",
        "select.where",
        "tile.broadcast",
        "tile.expand_dims",
        "tile.reshape",
        "tile.trans",
        "tile.gather",
        "scf.for",
        "scf.if",
        "scf.yield",
    }
)
CONVERSIONS = frozenset({"arith.cast", "arith.bitcast", "arith.constant"})


@register
@dataclass(frozen=True)
class EmulateFp8(Pass):
    name = "ssa.emulate_fp8"
    category = "hardware-dependent"
    description = "compute fp8 math in f32 and keep fp8 values as bytes where the target has no fp8"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        emulated = self.emulated(ctx)
        return any(v.type.dtype in emulated for v in _values(kernel))

    def emulated(self, ctx: PassContext) -> set[str]:
        """The fp8 formats the target does not compute with."""
        native = ctx.require_target(self.name).capability("fp8_dtypes", frozenset())
        return set(FP8_DTYPES) - set(native)

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        emulated = self.emulated(ctx)
        for op in list(kernel.walk()):
            if op.name not in MOVES | CONVERSIONS and _touches(op, emulated):
                computed = any(v.type.dtype in emulated for v in op.operands)
                if op.name == "mem.atomic" or op.regions or not computed:
                    raise PassError(
                        f"{self.name}: @{kernel.name} has {op.name} make or update fp8 values, "
                        "which this target holds as bytes; compute in f32 and convert with .to()"
                    )
                compute_in(kernel, op, emulated, "f32")
        for op in list(kernel.walk()):  # a bitcast's bytes stay as they are
            if op.name in CONVERSIONS - {"arith.bitcast"} and _touches(op, emulated):
                _convert(kernel, op, emulated)
        self._to_bytes(kernel, emulated)
        for op in list(kernel.walk()):  # what became a bitcast of bytes to bytes
            if op.name == "arith.bitcast" and op.operands[0].type == op.result.type:
                replace_op(kernel, op, [op.operands[0]])
        return True

    def _to_bytes(self, kernel: Kernel, emulated: set[str]) -> None:
        views = dict(kernel.attrs.get("buffer_views") or [])
        for arg in kernel.args:
            if arg.type.dtype not in emulated:
                continue
            if not isinstance(arg.type, BufferType):
                raise PassError(
                    f"{self.name}: @{kernel.name} takes %{arg.name} as an fp8 scalar; pass it as "
                    "an f32 and convert it in the program"
                )
            views.setdefault(arg.name, arg.type.dtype)
            arg.type = BufferType("u8")
        for op in kernel.walk():
            if op.name == "mem.alloc" and op.attrs["dtype"] in emulated:
                op.attrs["dtype"] = "u8"
            if op.name == "mem.load" and op.result.type.dtype in emulated and "other" in op.attrs:
                op.attrs["other"] = _code(op.attrs["other"], op.result.type.dtype)
            for value in [*op.results, *(a for r in op.regions for a in r.block.args)]:
                if value.type.dtype in emulated:
                    value.type = _bytes(value.type)
        if views:
            kernel.attrs["buffer_views"] = [[name, dtype] for name, dtype in sorted(views.items())]


def _convert(kernel: Kernel, op: Operation, emulated: set[str]) -> None:
    builder = builder_before(op)
    result = op.result
    if op.name == "arith.constant":
        value = make_constant(
            builder, _code(op.attrs["value"], result.type.dtype), _bytes(result.type)
        )
        replace_op(kernel, op, [builder.value("arith.bitcast", value, dtype=result.type.dtype)])
        return
    source, target = op.operands[0].type.dtype, result.type.dtype
    value = op.operands[0]
    if source in emulated:
        value = decode(builder, builder.value("arith.bitcast", value, dtype="u8"), source)
    if target in emulated:
        if value.type.dtype != "f32":
            value = builder.value("arith.cast", value, dtype="f32")
        value = builder.value("arith.bitcast", encode(builder, value, target), dtype=target)
    elif value.type.dtype != target:
        value = builder.value("arith.cast", value, dtype=target)
    replace_op(kernel, op, [value])


def _code(value: float, dtype: str) -> int:
    """The byte that holds `value` in `dtype`."""
    return int(fp8.to_bits(value, dtype))


def _touches(op: Operation, emulated: set[str]) -> bool:
    return any(v.type.dtype in emulated for v in (*op.operands, *op.results))


def _bytes(type_):
    if isinstance(type_, BufferType):
        return BufferType("u8")
    if isinstance(type_, ArrayType):
        return ArrayType("u8", type_.size)
    return with_dtype(type_, "u8")


def _values(kernel: Kernel):
    yield from kernel.args
    for op in kernel.walk():
        yield from op.results
