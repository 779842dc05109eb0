"""ssa.emulate_narrow_floats: narrow float formats on a target that does not compute with them:
the fp8 formats it does not list (capability `fp8_dtypes`: those it takes natively; none when
absent) and those it lists as `stored_only_dtypes` (bf16 where its arithmetic is wrong or absent:
Triton's CPU interpreter adds bf16 values as their raw 16 bits, TileLang's C form has no bf16).

Such a format is a storage format, as fp8 is in Triton: math on its values computes in f32, its
results rounded back; then every value of it becomes the unsigned word that holds its bits:

- `arith.cast` to the format encodes an f32 and from it decodes, by integer ops (`fp8_codec.py`,
  `bf16_codec.py`: round to nearest even, as torch converts);
- a constant becomes its code, a bitcast to or from the format the bits themselves;
- ops that only move values (loads, stores, selects, shape ops, loop-carried values) move words;
- a buffer of the format becomes one of words: the kernel records the caller's type
  (`buffer_views`) and the launch passes the tensor viewed as words.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from compiler.ir import BufferType, Kernel, Operation, fp8
from compiler.ir.types import BIT_WIDTHS, FP8_DTYPES, ArrayType, with_dtype
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.hardware_dependent.emulate_narrow_floats import bf16_codec, fp8_codec
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
        "scf.while",
        "scf.if",
        "scf.yield",
    }
)
CONVERSIONS = frozenset({"arith.cast", "arith.bitcast", "arith.constant"})


@register
@dataclass(frozen=True)
class EmulateNarrowFloats(Pass):
    name = "ssa.emulate_narrow_floats"
    category = "hardware-dependent"
    description = (
        "compute fp8 and bf16 math in f32 and keep their values as unsigned words where the "
        "target does not compute with them"
    )

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        emulated = self.emulated(ctx)
        return any(v.type.dtype in emulated for v in _values(kernel))

    def emulated(self, ctx: PassContext) -> set[str]:
        """The narrow float formats the target does not compute with."""
        target = ctx.require_target(self.name)
        native = target.capability("fp8_dtypes", frozenset())
        return set(FP8_DTYPES) - set(native) | set(target.capability("stored_only_dtypes", ()))

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        emulated = self.emulated(ctx)
        for op in list(kernel.walk()):
            if op.name not in MOVES | CONVERSIONS and _touches(op, emulated):
                computed = any(v.type.dtype in emulated for v in op.operands)
                if op.name == "mem.atomic" or op.regions or not computed:
                    raise PassError(
                        f"{self.name}: @{kernel.name} has {op.name} make or update "
                        f"{_touched(op, emulated)} values, which this target holds as their bits; "
                        "compute in f32 and convert with .to()"
                    )
                compute_in(kernel, op, emulated, "f32")
        for op in list(kernel.walk()):  # a bitcast's bits stay as they are
            if op.name in CONVERSIONS - {"arith.bitcast"} and _touches(op, emulated):
                _convert(kernel, op, emulated)
        self._to_words(kernel, emulated)
        for op in list(kernel.walk()):  # what became a bitcast of words to words
            if op.name == "arith.bitcast" and op.operands[0].type == op.result.type:
                replace_op(kernel, op, [op.operands[0]])
        return True

    def _to_words(self, kernel: Kernel, emulated: set[str]) -> None:
        views = dict(kernel.attrs.get("buffer_views") or [])
        for arg in kernel.args:
            if arg.type.dtype not in emulated:
                continue
            if not isinstance(arg.type, BufferType):
                raise PassError(
                    f"{self.name}: @{kernel.name} takes %{arg.name} as a {arg.type.dtype} scalar, "
                    "which this target holds as its bits; pass it as an f32 and convert it in "
                    "the program"
                )
            views.setdefault(arg.name, arg.type.dtype)
            arg.type = BufferType(_word(arg.type.dtype))
        for op in kernel.walk():
            if op.name == "mem.alloc" and op.attrs["dtype"] in emulated:
                op.attrs["dtype"] = _word(op.attrs["dtype"])
            if op.name == "mem.load" and op.result.type.dtype in emulated and "other" in op.attrs:
                op.attrs["other"] = _code(op.attrs["other"], op.result.type.dtype)
            for value in [*op.results, *(a for r in op.regions for a in r.block.args)]:
                if value.type.dtype in emulated:
                    value.type = _words(value.type)
        if views:
            kernel.attrs["buffer_views"] = [[name, dtype] for name, dtype in sorted(views.items())]


def _convert(kernel: Kernel, op: Operation, emulated: set[str]) -> None:
    builder = builder_before(op)
    result = op.result
    if op.name == "arith.constant":
        value = make_constant(
            builder, _code(op.attrs["value"], result.type.dtype), _words(result.type)
        )
        replace_op(kernel, op, [builder.value("arith.bitcast", value, dtype=result.type.dtype)])
        return
    source, target = op.operands[0].type.dtype, result.type.dtype
    value = op.operands[0]
    if source in emulated:
        value = _decode(builder, builder.value("arith.bitcast", value, dtype=_word(source)), source)
    if target in emulated:
        if value.type.dtype != "f32":
            value = builder.value("arith.cast", value, dtype="f32")
        value = builder.value("arith.bitcast", _encode(builder, value, target), dtype=target)
    elif value.type.dtype != target:
        value = builder.value("arith.cast", value, dtype=target)
    replace_op(kernel, op, [value])


def _decode(builder, word, dtype: str):
    return (
        bf16_codec.decode(builder, word)
        if dtype == "bf16"
        else fp8_codec.decode(builder, word, dtype)
    )


def _encode(builder, value, dtype: str):
    return (
        bf16_codec.encode(builder, value)
        if dtype == "bf16"
        else fp8_codec.encode(builder, value, dtype)
    )


def _code(value: float, dtype: str) -> int:
    """The bits that hold `value` in `dtype`, as an unsigned number."""
    formatted = fp8.FORMATS[dtype].torch_dtype if dtype in fp8.FORMATS else torch.bfloat16
    rounded = torch.tensor(value, dtype=torch.float32).to(formatted)
    width = BIT_WIDTHS[dtype]
    return int(rounded.view(getattr(torch, f"int{width}")).item()) & ((1 << width) - 1)


def _word(dtype: str) -> str:
    """The unsigned type as wide as `dtype`."""
    return f"u{BIT_WIDTHS[dtype]}"


def _touches(op: Operation, emulated: set[str]) -> bool:
    return _touched(op, emulated) is not None


def _touched(op: Operation, emulated: set[str]) -> str | None:
    """The first emulated format among `op`'s operands and results, if any."""
    return next(
        (v.type.dtype for v in (*op.operands, *op.results) if v.type.dtype in emulated), None
    )


def _words(type_):
    word = _word(type_.dtype)
    if isinstance(type_, BufferType):
        return BufferType(word)
    if isinstance(type_, ArrayType):
        return ArrayType(word, type_.size)
    return with_dtype(type_, word)


def _values(kernel: Kernel):
    yield from kernel.args
    for op in kernel.walk():
        yield from op.results
