"""The TVM target: TVMScript TIR (`from tvm.script import tirx as T`, apache-tvm 0.27).

TIR has no tile values, so the record says `value_semantics` False: generic passes turn tiles into
`T.alloc_buffer` arrays and loops of scalar ops, run every parallel loop serially, wrap the body in
a loop over the programs (`program_ids` "loop": `T.serial` on the CPU, a `blockIdx.x` thread
binding on CUDA) and give loops unit steps (`T.serial(start, stop)` has none). Every value is an
immutable `T.let` binding: TIR would make a plain assignment a mutable local, which CUDA lowering
cannot hoist out of the launch. Index arithmetic is int32 throughout (TIR does not mix integer
widths), and integer division is `T.truncdiv` / `T.truncmod` (the IR truncates toward zero).
"""

from __future__ import annotations

import dataclasses

from compiler.backends.emitter import STRUCTURED_OPS
from compiler.backends.operators import LIBM_MATH, MATH, OPERAND_DTYPES
from compiler.backends.python_syntax import python_syntax
from compiler.backends.target import OpText, Target
from compiler.backends.tir import (
    TIR_CAPABILITIES,
    TIR_SPELLING,
    masked_load,
    sequential_atomic,
    typed_arithmetic,
    wrapping_arithmetic,
)


def _not(op: OpText) -> str:
    return f"T.Not({op.args[0]})" if op.fields["result_dtype"] == "bool" else f"~{op.args[0]}"


# Signed types narrower than 64 bits, with their widths.
_NARROW_SIGNED = {"int8": 8, "int16": 16, "int32": 32}


def _constant(op: OpText) -> str:
    """`T.uint64(v)` takes v only up to int64's range (TVM's FFI has no wider integer): a larger
    one is made of its two 32-bit halves (the int64 of its bits, reinterpreted, failed the CUDA
    form, whose lowering narrows an int64 constant that fits 32 bits). The smallest value of a
    narrower signed type is the reinterpreted bits of its unsigned twin: TVM's simplifier, seeing
    it, rewrites `x == c` as `x - c == 0` and makes -c in the same type (-(-2^31) is no int32: it
    gave false for every x, or failed)."""
    dtype, value = op.fields["result_dtype"], op.attrs["value"]
    if dtype == "uint64" and value >= 2**63:
        return f"((T.uint64({value >> 32}) << T.uint64(32)) | T.uint64({value & 0xFFFFFFFF}))"
    if dtype in _NARROW_SIGNED and value == -(2 ** (_NARROW_SIGNED[dtype] - 1)):
        return f'T.reinterpret("{dtype}", T.u{dtype}({-value}))'
    return f"T.{dtype}({op.fields['value']})"


def _alloc(op: OpText) -> str:
    name, size, dtype = op.fields["name"], op.attrs["size"], op.fields["dtype"]
    scope = op.fields.get("scope", '"local"')  # spelled attributes are quoted already
    return f'{name} = T.alloc_buffer(({size},), "{dtype}", scope={scope})'


# TVM lowers `tanh` for LLVM to a fast rational approximation (0 for denormals, +0.0 for -0.0,
# 8.9e-8 for 1e-7): left out, it is expanded from exp (`ssa.lower_backend_intrinsics`).
_TVM_MATH = [name for name in MATH + LIBM_MATH if name != "math.tanh"]

SPELLING = {
    **TIR_SPELLING,
    **{name: f"T.{name.split('.')[1]}({{0}})" for name in _TVM_MATH},
    "math.isnan": "T.isnan({0})",
    "arith.not": _not,
    "arith.constant": _constant,
    "arith.cast": 'T.Cast("{dtype}", {0})',
    "arith.bitcast": 'T.reinterpret("{dtype}", {0})',
    **typed_arithmetic("T.{dtype}({value})"),
    "mem.load": masked_load("T.{dtype}({value})"),
    "mem.alloc": _alloc,
    "mem.atomic": sequential_atomic(
        "T.{dtype}({value})", '{name} = T.alloc_buffer((1,), "{dtype}", scope="local")'
    ),
}

_DTYPES = {
    "i1": "bool",
    **{f"i{b}": f"int{b}" for b in (8, 16, 32, 64)},
    **{f"u{b}": f"uint{b}" for b in (8, 16, 32, 64)},
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "index": "int32",
}
SPELLING.update(
    wrapping_arithmetic(SPELLING, 'T.Cast("{dtype}", {value})', "T.{dtype}({value})", _DTYPES)
)

_SYNTAX = dataclasses.replace(
    python_syntax(
        prelude=("from tvm.script import tirx as T", "", ""),
        decorator="@T.prim_func",
        names_used=frozenset({"T", "float"}),
    ),
    define="{name}: T.let[T.{type}] = {expr}",
    for_open="for {iv} in T.serial({lb}, {ub}):",  # unit steps: ssa.normalize_loops made them so
    # A flat buffer of any extent, starting anywhere: the launcher passes views into a shared
    # arena at a tensor's storage offset, so TVM may assume neither alignment nor a zero offset.
    buffer_param='{name}: T.Buffer((T.int32(),), "{dtype}", align=1, offset_factor=1)',
    scalar_param="{name}: T.{dtype}",
    grid_open="for {pid} in T.serial(0, {count}):",
    # Inside the kernel a value is a one-element local buffer, not a Let: TVM inlines integer Lets
    # into every use, and a long chain of them (Philox's rounds) takes its simplifier a minute;
    # LLVM keeps such buffers in registers. Before the kernel a Let is what the host evaluates.
    grid_define='{name} = T.alloc_buffer((1,), "{type}", scope="local"); {name}[0] = {expr}',
    grid_reference="{name}[0]",
    grid_stored_float_zeros=True,
)


# TVM 0.27's LLVM legalization of bf16 math fails on a bf16 Let ("StructuralEqual(value->ty,
# var->ty)"): on the CPU bf16 values are held as their bits, their math in f32. TVM gives LLVM
# 64-bit add, sub and mul as `nuw`/`nsw`: unsigned overflow is taken as impossible too.
_LLVM = {"stored_only_dtypes": frozenset({"bf16"}), "overflow_free_64": frozenset({"i64", "u64"})}

TARGET = Target(
    name="tvm",
    device="cpu",
    legal_ops=frozenset(SPELLING) | STRUCTURED_OPS | {"scf.grid"},
    spelling=SPELLING,
    dtype_spelling=_DTYPES,
    memory_scopes={"global": "global", "tile": "local"},
    syntax=_SYNTAX,
    capabilities={**TIR_CAPABILITIES, "shared_memory": False, **_LLVM},
    operand_dtypes=OPERAND_DTYPES,
    declaring_ops=frozenset({"mem.alloc", "mem.atomic"}),
    # Past 2^31 elements: every index, buffer extents included, in int64.
    wide_index={
        "index": "int64",
        "syntax": {"buffer_param": _SYNTAX.buffer_param.replace("T.int32()", "T.int64()")},
    },
)

# The same TIR on CUDA, but each program is a CUDA block: TVM splits the launch off the host code.
# Atomics only where one program runs at a time: TVM's TIR has no atomic update to spell on CUDA.
_CUDA_SPELLING = {op: text for op, text in SPELLING.items() if op != "mem.atomic"}
TARGETS = {
    "cpu": TARGET,
    "cuda": dataclasses.replace(
        TARGET,
        device="cuda",
        capabilities={
            **{k: v for k, v in TARGET.capabilities.items() if k not in _LLVM},
            "overflow_free_64": TIR_CAPABILITIES["overflow_free_64"],
        },
        spelling=_CUDA_SPELLING,
        legal_ops=frozenset(_CUDA_SPELLING) | STRUCTURED_OPS | {"scf.grid"},
        syntax=dataclasses.replace(
            _SYNTAX, grid_open='for {pid} in T.thread_binding({count}, thread="blockIdx.x"):'
        ),
    ),
}
