"""The Triton target: every registered op Triton's language has natively, and how to spell it.

Ops left out on purpose (a pass decomposes or binds them before emission): `math.pow`,
`math.tanh`, `math.atan` (no `tl` builtin; `libdevice`'s do not run in the interpreter),
`index.meta` (bound by the schedule). `index` values are Triton's native `tl.int32`
(program ids, `tl.arange` and `range` are i32; i64 arguments promote on their own).
"""

from __future__ import annotations

import dataclasses

from compiler.backends.emitter import STRUCTURED_OPS
from compiler.backends.operators import INFIX, MATH, OPERAND_DTYPES, compare, infix
from compiler.backends.python_syntax import python_syntax
from compiler.backends.target import OpText, Target
from compiler.ir.types import BIT_WIDTHS

_INFIX = {
    **INFIX,
    "arith.idiv": "//",  # Triton's integer `//` truncates toward zero, as the IR's idiv
    "arith.irem": "%",  # and `%` takes the sign of the dividend, as the IR's irem
    "math.fmod": "%",  # on floats Triton's `%` is LLVM's frem: C's fmod
}


def _masked(call: str, op: OpText, values: int) -> str:
    """`tl.load`/`tl.store` of `pointer + offsets`, with the optional mask and `other`."""
    pointer, offsets, *rest = op.args
    parts = [f"{pointer} + {offsets}", *rest[:values]]
    if len(rest) > values:
        parts.append(f"mask={rest[values]}")
    if "other" in op.fields:
        parts.append(f"other={op.fields['other']}")
    return f"{call}({', '.join(parts)})"


def _dot(op: OpText) -> str:
    """tl.dot with the products the dot permits: TF32 where it says so, else exact."""
    precision = op.attrs.get("precision", "ieee")
    keywords = f'input_precision="{precision}", out_dtype={op.fields["dtype"]}'
    return f"tl.dot({op.args[0]}, {op.args[1]}, {keywords})"


def _extreme(call: str, op: OpText) -> str:
    """`tl.max`/`tl.min` compute an operand narrower than 32 bits in i32 or f32; the IR's
    reduction keeps its dtype (as Triton's `max(..., return_indices=True)` does), so such a
    result is cast back, exactly."""
    text = f"{call}({op.args[0]}, axis={op.fields['axis']})"
    if BIT_WIDTHS.get(op.operand_dtypes[0], 64) >= 32:
        return text
    return f"{text}.to({op.fields['result_dtype']})"


SPELLING = {
    **infix(_INFIX),
    **{name: f"tl.{name.split('.')[1]}({{0}})" for name in MATH},
    "arith.max": "tl.maximum({0}, {1})",
    "arith.min": "tl.minimum({0}, {1})",
    "arith.neg": "-{0}",
    "arith.not": "~{0}",
    "arith.constant": "tl.full({result_shape}, {value}, {result_dtype})",
    "arith.cmp": compare,
    "math.isnan": "{0} != {0}",
    "math.fma": "tl.fma({0}, {1}, {2})",
    "arith.cast": "{0}.to({dtype})",
    "arith.bitcast": "{0}.to({dtype}, bitcast=True)",
    "select.where": "tl.where({0}, {1}, {2})",
    "linalg.dot": _dot,
    "reduce.sum": "tl.sum({0}, axis={axis}, dtype={result_dtype})",
    "reduce.max": lambda op: _extreme("tl.max", op),
    "reduce.min": lambda op: _extreme("tl.min", op),
    "tile.arange": "tl.arange(0, {size})",
    "tile.broadcast": "tl.broadcast_to({0}, {shape})",
    "tile.expand_dims": "tl.expand_dims({0}, {axis})",
    "tile.reshape": "tl.reshape({0}, {shape})",
    "tile.trans": "tl.permute({0}, {perm})",
    "tile.sort": "tl.sort({0}, dim={axis}, descending={descending})",
    "tile.gather": "tl.gather({0}, {1}, {axis})",
    "scan.sum": "tl.cumsum({0}, axis={axis}, reverse={reverse})",
    "index.program_id": "tl.program_id({axis})",
    "mem.load": lambda op: _masked("tl.load", op, values=0),
    "mem.store": lambda op: _masked("tl.store", op, values=1),
    "mem.atomic": lambda op: (
        _masked(f"tl.atomic_{op.attrs['kind']}", op, values=1)
        if op.attrs["kind"] != "cas"
        else "tl.atomic_cas({0} + {1}, {3}, {2})".format(*op.args)
    ),
    "mem.barrier": "tl.debug_barrier()",
}

_DTYPES = {
    "i1": "tl.int1",
    **{f"i{b}": f"tl.int{b}" for b in (8, 16, 32, 64)},
    **{f"u{b}": f"tl.uint{b}" for b in (8, 16, 32, 64)},
    "f16": "tl.float16",
    "bf16": "tl.bfloat16",
    "f32": "tl.float32",
    "f64": "tl.float64",
    "index": "tl.int32",
}


# Triton's CPU interpreter adds, compares and reduces bf16 values as their raw 16 bits, and
# truncates to bf16 where a GPU rounds: bf16 math there computes in f32.
_INTERPRETER = {"stored_only_dtypes": frozenset({"bf16"})}

TARGET = Target(
    name="triton",
    device="cpu",
    legal_ops=frozenset(SPELLING) | STRUCTURED_OPS,
    spelling=SPELLING,
    dtype_spelling=_DTYPES,
    memory_scopes={"global": "global"},
    syntax=dataclasses.replace(
        python_syntax(
            prelude=("import triton", "import triton.language as tl", "", ""),
            decorator="@triton.jit",
            names_used=frozenset({"triton", "tl", "range", "float"}),
            # An int argument equal to 1 arrives as a constexpr, and the interpreter's loop index
            # is a Python int: make both tensors like any other value. Triton types a host number
            # by its value (an int that fits 32 bits is int32, a float past f32's range f64):
            # the cast gives it the IR's dtype (64-bit sizes in the wide form, f32 rounding).
            to_value="tl.to_tensor({name}).to({dtype})",
        ),
        # Sizes a program declares constexpr may stay parameters (`ntc compile` without -D), as
        # in NineToothed: the JIT specialises on their values at launch.
        constexpr_param="{name}: tl.constexpr",
    ),
    capabilities={
        "value_semantics": True,
        "shared_memory": False,
        "power_of_two_tiles": True,
        "dot_min": 16,
        "max_tile_elements": 1 << 20,
        "index_bits": 32,
        # A tile op's global accesses are spread over the program's threads, and Triton orders
        # shared memory only: ssa.order_memory puts barriers between dependent accesses.
        "memory_order": "barrier",
        **_INTERPRETER,
    },
    operand_dtypes={
        **OPERAND_DTYPES,
        "linalg.dot": frozenset({"i8", "u8", "f16", "bf16", "f32", "f64"}),
    },
    # Past 2^31 elements: program ids widened at once, so every offset built on them is int64.
    wide_index={
        "index": "tl.int64",
        "spelling": {"index.program_id": "tl.program_id({axis}).to(tl.int64)"},
    },
)

# One language for both devices: on a GPU the same source is compiled instead of interpreted, and
# computes with bf16.
_GPU_CAPABILITIES = {k: v for k, v in TARGET.capabilities.items() if k not in _INTERPRETER}
TARGETS = {
    "cpu": TARGET,
    "cuda": dataclasses.replace(TARGET, device="cuda", capabilities=_GPU_CAPABILITIES),
}
