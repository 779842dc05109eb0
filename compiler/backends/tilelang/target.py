"""The TileLang target: scalar code over flat buffers and arrays in a `@T.prim_func`.

TileLang's tiles are not NineToothed's (TileLang fixes their layout across threads), so the record
says `value_semantics` False and the generic passes turn tiles into arrays and loops of scalar ops.
Program ids are TileLang's own: the body is `scf.grid` (`program_ids` "loop"), spelled
`with T.Kernel(count) as pid`. On the CPU (`tilelang.cpu.language`, compiled to C) element loops
run serially; on CUDA (`tilelang.language`) they stay `scf.parallel`, spelled `T.Parallel`, which
TileLang spreads over the block's threads and fences with barriers itself; a loop over a tile's
elements is `T.Parallel` over the tile's dims, on arrays allocated in the tile's shape.

Before the kernel a value is a Let binding; inside it a one-element variable (`grid_define`), and
constants stay Lets everywhere, so loop bounds and `T.Parallel` extents are constants to TileLang;
so do values the same in every program and what a box view reads, and on CUDA small expressions
(`grid_plain_ops`), which TileLang's analysis reads through.
`index` is int32 (TileLang's program ids and loop indices), int64 in the C form for launches
whose offsets do not fit (`wide_index`; buffer extents too).
Buffers are 1-D of symbolic extent `<name>_extent`, so TileLang bounds-checks every access and the
launcher passes a tensor's storage.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from compiler.backends.c_names import C_RESERVED
from compiler.backends.emitter import STRUCTURED_OPS
from compiler.backends.operators import LIBM_MATH, MATH, MATH_DTYPES, OPERAND_DTYPES, atomic
from compiler.backends.python_syntax import python_syntax
from compiler.backends.target import OpText, Target, Unspellable
from compiler.backends.tir import (
    TIR_CAPABILITIES,
    TIR_SPELLING,
    masked_load,
    sequential_atomic,
    typed_arithmetic,
    wrapping_arithmetic,
)
from compiler.ir.memory_rules import BOX_SCALARS, split_box


def _alloc(op: OpText) -> str:
    """`T.alloc_local` / `T.alloc_shared` / `T.alloc_fragment`: the scope the tile lowering
    recorded; an array with the shape of its tile has it (fragments, block copies' arrays:
    `ntc_index` reads it flat)."""
    scope = op.attrs.get("scope", "local")
    dims = op.attrs.get("shape", [op.attrs["size"]]) if scope != "local" else [op.attrs["size"]]
    shape = ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "")
    return f"{op.fields['name']} = T.alloc_{scope}(({shape}), {op.fields['dtype']})"


# Floats with the integer types of their bits: TileLang's C writer prints float constants to 7
# significant digits, which changes most f32 and f64 values; integers it prints exactly.
# A float type's numpy type (bf16's value is exact in f32, whose upper half are its bits) and the
# integer type of its bits.
_FLOAT_BITS = {
    "T.float16": (np.float16, np.int16, "T.int16"),
    "T.bfloat16": (np.float32, np.int32, "T.int16"),
    "T.float32": (np.float32, np.int32, "T.int32"),
    "T.float64": (np.float64, np.int64, "T.int64"),
}


# The smallest value of each signed type narrower than 64 bits.
_NARROW_SIGNED_MINIMUM = {"T.int8": -(2**7), "T.int16": -(2**15), "T.int32": -(2**31)}


def _constant(op: OpText) -> str:
    """A Let of the constant; a float that 7 digits would change comes from its bits, stored in a
    one-element local array first (TIR reinterprets only what it can take the address of). So
    does a float zero: TIR's simplifier would apply integer algebra to a zero it can see
    (`x * 0.0` to 0, `x + 0.0` to x), wrong for NaN, infinities and -0.0. The smallest value of
    a narrow signed type is read from such an array too: the simplifier, seeing it, rewrites
    `x == c` as `x - c == 0` and fails to make -c in that type (-(-2^31) is no int32)."""
    name, dtype, value = op.fields["name"], op.fields["result_dtype"], op.attrs["value"]
    let = f"{name} = {dtype}({op.fields['value']})"
    if _NARROW_SIGNED_MINIMUM.get(dtype) == value:
        cell = f"{name}_cell"
        return "\n".join(
            [f"{cell} = T.alloc_local((1,), {dtype})", f"{cell}[0] = {let}", f"{name} = {cell}[0]"]
        )
    if dtype not in _FLOAT_BITS or not math.isfinite(value):
        return let
    float_type, bits_type, bits_dtype = _FLOAT_BITS[dtype]
    if value != 0 and float_type(f"{value:.6e}") == float_type(value):
        return let
    bits = int(np.array(value, float_type).view(bits_type)) >> (16 if dtype == "T.bfloat16" else 0)
    cell = f"{name}_bits"
    return "\n".join(
        [
            f"{cell} = T.alloc_local((1,), {bits_dtype})",
            f"{cell}[0] = {bits_dtype}({bits})",
            f"{name} = T.reinterpret({cell}[0], {dtype})",
        ]
    )


SPELLING = {
    **TIR_SPELLING,
    **{name: f"T.{name.split('.')[1]}({{0}})" for name in MATH + LIBM_MATH},
    # T.abs of a float is tirx.fabs, which the C target lacks; `0 - x` for x <= 0 clears the sign
    # of both zeros (T.max(x, -x) kept -0.0 for +0.0: C's a > b ? a : b gives b on a tie)
    "math.abs": "T.if_then_else({0} <= {result_dtype}(0), {result_dtype}(0) - {0}, {0})",
    "math.pow": "T.pow({0}, {1})",
    "math.isnan": "T.isnan({0})",
    "arith.not": "T.Not({0})",
    "arith.constant": _constant,  # a Let, also inside the kernel
    "arith.cast": "T.Cast({dtype}, {0})",
    "arith.bitcast": "T.reinterpret({0}, {dtype})",
    **typed_arithmetic("{dtype}({value})"),
    "mem.load": masked_load("{dtype}({value})"),
    "mem.alloc": _alloc,
    "mem.atomic": sequential_atomic("{dtype}({value})", "{name} = T.alloc_local((1,), {dtype})"),
}

_DTYPES = {
    "i1": "T.bool",
    **{f"i{b}": f"T.int{b}" for b in (8, 16, 32, 64)},
    **{f"u{b}": f"T.uint{b}" for b in (8, 16, 32, 64)},
    "f16": "T.float16",
    "bf16": "T.bfloat16",
    "f32": "T.float32",
    "f64": "T.float64",
    "index": "T.int32",
}
SPELLING.update(
    wrapping_arithmetic(SPELLING, "T.Cast({dtype}, {value})", "{dtype}({value})", _DTYPES)
)


# TileLang 0.1.15's C target has no bfloat16 type at all ("Cannot convert type bfloat16 to C
# type"): bf16 values are held as their bits (capability `stored_only_dtypes`), and their math
# computes in f32.
_C_DTYPES = {dtype: spelled for dtype, spelled in _DTYPES.items() if dtype != "bf16"}

# TileLang 0.1.15's C wrapper spells no bfloat16 or uint32 pointer, and declares a bool buffer
# `bool*` where its kernel takes `int8_t*`; it takes no u8, u16 or u32 scalar and passes an f16
# scalar's bits wrongly. Arguments of other types are passed as one of these
# (ssa.legalize_argument_dtypes).
C_BUFFER_DTYPES = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u64", "f16", "f32", "f64"})
C_SCALAR_DTYPES = frozenset({"i1", "i8", "i16", "i32", "i64", "u64", "f32", "f64"})

# TileLang writes C or CUDA C++ with the kernel's own names: those of C are taken too.
_SYNTAX = dataclasses.replace(
    python_syntax(
        prelude=("import tilelang.cpu.language as T", "", ""),
        decorator="@T.prim_func",
        names_used=frozenset({"T", "float"}) | C_RESERVED,
    ),
    for_open="for {iv} in T.serial({lb}, {ub}, {step}):",
    buffer_param='{name}: T.Tensor((T.dynamic("{name}_extent"),), {dtype})',
    scalar_param="{name}: {dtype}",
    grid_open="with T.Kernel({count}) as {pid}:",
    # Inside the kernel a value is a one-element local variable, not a Let binding: TIR inlines
    # integer Lets into every use, and the inlined index trees take TileLang's simplifier seconds
    # to minutes. Before the kernel (the grid count, hoisted invariants) a Let is what TileLang
    # evaluates on the host.
    grid_define="{name} = T.alloc_var({type}, init={expr})",
)


TARGET = Target(
    name="tilelang",
    device="cpu",
    legal_ops=frozenset(SPELLING) | STRUCTURED_OPS | {"scf.grid"},
    spelling=SPELLING,
    dtype_spelling=_C_DTYPES,
    memory_scopes={"global": "global", "tile": "local"},
    syntax=_SYNTAX,
    capabilities={
        **TIR_CAPABILITIES,
        "buffer_dtypes": C_BUFFER_DTYPES,
        "scalar_dtypes": C_SCALAR_DTYPES,
        "stored_only_dtypes": frozenset({"bf16"}),
    },
    operand_dtypes={
        **OPERAND_DTYPES,
        "math.pow": MATH_DTYPES,
    },
    declaring_ops=frozenset({"mem.alloc", "arith.constant", "mem.atomic"}),
    wide_index={
        "index": "T.int64",
        "syntax": {"buffer_param": _SYNTAX.buffer_param.replace('_extent")', '_extent", "int64")')},
    },
)


# On CUDA: TileLang's CUDA dialect, one block per program (its warps chosen by
# ssa.tilelang.optimize_schedule), element loops kept parallel. Tiles live in shared memory, where
# every thread sees them; a scalar that changes is computed alike by every thread, so each keeps
# its own (local) copy. Atomics are TileLang's own, giving the old value. Tiles dots read move in
# by T.copy of a strided view of the flat buffer (`box_copy`), and a loop of such copies and a
# gemm is T.Pipelined (`pipeline_stages`): TileLang overlaps the next tiles' copies with the gemm.
# So is one that does other work between its copies and gemms (`pipeline_interleaved`).
_TILELANG_ATOMIC = atomic(
    "T.atomic_{kind}({buffer}[{offset}], {value}, return_prev=True)",
    "T.if_then_else({cond}, {update}, {dtype}(0))",
)
_RETURNING_PREVIOUS = ("add", "max", "min")  # TileLang's atomics that give the old value


def _cuda_atomic(op: OpText) -> str:
    kind = op.attrs["kind"]
    if kind not in _RETURNING_PREVIOUS:
        raise Unspellable(
            f"is an atomic {kind}, which TileLang's CUDA form lacks (its atomics giving the old "
            f"value: {', '.join(_RETURNING_PREVIOUS)})",
            "compile this kernel for the cuda or triton backend",
        )
    return _TILELANG_ATOMIC(op)


_CUDA_SPELLING = {
    **SPELLING,
    "mem.atomic": _cuda_atomic,
    "mem.barrier": "T.sync_threads()",
}


# Helpers the CUDA form's arrays go through: an array is 1-D or has its tile's shape, and a
# block-wide op takes it as it is where its shape is the one wanted (TileLang's software pipelining
# sees through no `T.reshape` view).
_CUDA_HELPERS = (
    "",
    "",
    "def ntc_index(array, position):",
    '    """A flat (row-major) position in `array` as its indices."""',
    "    if len(array.shape) == 1:",
    "        return (position,)",
    "    return (position // array.shape[1], position % array.shape[1])",
    "",
    "",
    "def ntc_view(array, shape):",
    '    """`array` with `shape`: itself where it has it, else a view."""',
    "    if [int(d) for d in array.shape] == list(shape):",
    "        return array",
    "    return T.reshape(array, shape)",
)


def _block_dot(op: OpText) -> str:
    """mem.dot as TileLang's tensor-core T.gemm: the shared operand arrays viewed 2-D, summed
    into the fragment the tile lowering allocated (`array_dot["accumulator"]`), cleared first
    unless the dot accumulates. TileLang lays the operand arrays out for the gemm and rewrites
    every other access to them to match. A `transpose_b` operand is held [n, k]: T.gemm reads it
    transposed. Where the rows alone give every warp whole 16-row blocks, the warps split the
    rows only (`FullRow`): on Hopper each warpgroup then runs wgmma over whole 64-row blocks of
    the full width, and no operand's columns are split below the layouts wgmma takes (a 16-wide
    operand split in two is none)."""
    a, b, c = op.args
    m, n, k = (op.fields[d] for d in "mnk")
    transposed = op.attrs.get("transpose_b", False)
    b_shape = f"[{n}, {k}]" if transposed else f"[{k}, {n}]"
    operands = f"ntc_view({a}, [{m}, {k}]), ntc_view({b}, {b_shape}), {c}"
    flags = ", transpose_B=True" * transposed
    if op.attrs["m"] % (16 * int(op.fields["num_warps"])) == 0:
        flags += ", policy=T.GemmWarpPolicy.FullRow"
    return f"T.gemm({operands}{flags}, clear_accum={not op.attrs['accumulate']})"


def _block_reduce(op: OpText) -> str:
    """mem.reduce as TileLang's block-wide reduction, the arrays viewed [outer, length, inner]
    and [outer, inner]."""
    outer, length, inner = op.attrs["shape"]
    views = f"ntc_view({op.args[0]}, [{outer}, {length}, {inner}]), ntc_view({op.args[1]}, "
    return f"T.reduce_{op.attrs['kind']}({views}[{outer}, {inner}]), dim=1)"


def _box_view(op: OpText, name: str, buffer: int) -> str:
    """The box of a block copy: the buffer viewed with the copy's sizes and strides, at its
    bases. TileLang bounds-checks each dim against the view's size (zero where a load is out of
    bounds). No TMA: the strides are only known at launch."""
    bases, sizes, strides = split_box(op.args[BOX_SCALARS[name]])
    dtype = _DTYPES[op.operand_dtypes[buffer]]
    layout = f"({', '.join(sizes)},), ({', '.join(strides)},), {dtype}"
    return f"T.StridedTensor({layout}, data={op.args[buffer]}.data)[{', '.join(bases)}]"


_NO_TMA = 'annotations={"disable_tma": True}'

# mem.copy between a fragment and a shared array, both viewed with the tile's shape.
_ARRAY_OPS = {
    "mem.dot": _block_dot,
    "mem.reduce": _block_reduce,
    "mem.copy": "T.copy(ntc_view({0}, {shape}), ntc_view({1}, {shape}))",
    "mem.copy_box_in": lambda op: (
        f"T.copy({_box_view(op, 'mem.copy_box_in', 0)}, ntc_view({op.args[-1]}, "
        f"{op.fields['shape']}), {_NO_TMA})"
    ),
    "mem.copy_box_out": lambda op: (
        f"T.copy(ntc_view({op.args[0]}, {op.fields['shape']}), "
        f"{_box_view(op, 'mem.copy_box_out', 1)}, {_NO_TMA})"
    ),
    "mem.read": "{0}[ntc_index({0}, {1})]",
    "mem.write": "{0}[ntc_index({0}, {1})] = {2}",
}


CUDA_TARGET = dataclasses.replace(
    TARGET,
    device="cuda",
    dtype_spelling=_DTYPES,
    legal_ops=TARGET.legal_ops | set(_ARRAY_OPS) | {"mem.barrier"},
    spelling={**_CUDA_SPELLING, **_ARRAY_OPS},
    declaring_ops=TARGET.declaring_ops - {"mem.atomic"},
    # A tile each thread alone touches (ssa.lower_parallel) is a fragment, in registers: TileLang
    # lays it out to match the T.Parallel loops over it.
    memory_scopes={"global": "global", "tile": "shared", "scalar": "local", "private": "fragment"},
    syntax=dataclasses.replace(
        _SYNTAX,
        prelude=("import tilelang.language as T", *_CUDA_HELPERS, "", ""),
        reserved=_SYNTAX.reserved | {"ntc_index", "ntc_view"},
        grid_open="with T.Kernel({count}, threads={num_warps} * 32) as {pid}:",
        parallel_open="for {iv} in T.Parallel({extent}):",
        parallel_nest_open="for {ivs} in T.Parallel({extents}):",
        pipelined_for_open="for {iv} in T.Pipelined({lb}, {ub}, num_stages={stages}):",
        # TileLang copies a box's rows as vectors only where it proves their start a multiple.
        grid_plain_ops=3,
    ),
    capabilities={
        **TIR_CAPABILITIES,
        "parallel": "native",
        "max_warps": 8,
        # Tiles live in fragments (registers) and dynamic shared memory, not C arrays: edges up
        # to 128 (a 128 x 128 f32 accumulator is 128 registers a thread at 4 warps, 64 at 8).
        "tile_cap": 128,
        # Dots of f16/bf16 tiles, or of f32 ones permitting TF32 products (T.gemm of f32
        # arrays multiplies in TF32), in whole 16 x 16 x 16 blocks: T.gemm on tensor cores, where
        # the program's warps split the result into 16-row, 8-column blocks (TileLang's rule).
        "array_dot": {
            "dtypes": ("f16", "bf16", "tf32"),
            "multiple": 16,
            "warp_tile": (16, 8),
            "accumulator": "fragment",
            # T.gemm(..., transpose_B=True): a dot of a transposed tile reads the tile itself.
            "transposed": True,
            # A fragment's elements are read and written in T.Parallel loops (TileLang lays them
            # out): a sum a loop rescales before adding a dot stays in its fragment.
            "accumulator_elements": True,
        },
        "array_reduce": {"dtypes": ("f32",), "max_elements": 4096},
        # A costly tile read more than once is held (computed once) up to 4096 elements: past
        # that, recomputing it costs less than the shared memory holding it.
        "held_elements": 4096,
        # Tiles dots read, and those block-wide ops wrote, move between global and shared
        # memory by T.copy of a strided view (mem.copy_box_in / mem.copy_box_out).
        "box_copy": True,
        # Loops that copy boxes in for T.gemm: T.Pipelined, its copies asynchronous, double
        # buffered unless the program gives num_stages.
        "pipeline_stages": 2,
        # TileLang's planner orders a loop with other work in it too (attention's key loop),
        # each copy issued after its array's last reader; and with a trip count known only at
        # run time, TileLang 0.1.15 compiles a pipeline at most one stage deep (a deeper one's
        # epilogue waits on a count its CUDA codegen cannot take).
        "pipeline_interleaved": True,
        "pipeline_runtime_depth": 1,
        # A launch on 16-byte aligned buffers specializes the kernel to its unit strides and to
        # the sizes and strides 16 divides (compiler/runtime/specialization.py): TileLang then
        # proves a box's rows start aligned and its bounds hold for whole vectors, and copies
        # 2-byte elements too as `cp.async` of up to 16 bytes. TileLang assumes a buffer whose
        # offsets it proves aligned starts aligned: a launch with any other runs the general form.
        "specialize": {"alignment": 16, "multiple": 16, "all_aligned": True},
    },
    # TileLang 0.1.15 binds a `T.Parallel` loop to an int32 thread variable and rejects int64
    # indices derived from it, so on CUDA a launch past 2^31 elements is refused.
    wide_index={},
)

TARGETS = {"cpu": TARGET, "cuda": CUDA_TARGET}
