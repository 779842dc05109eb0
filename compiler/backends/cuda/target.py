"""The CUDA C++ target: scalar code over buffers and arrays, one CUDA block per program.

Tiles do not exist in CUDA C++, so the record says `value_semantics` False: generic passes turn
tiles into arrays and loops of scalar ops (`ssa.lower_tiles_to_loops`), spread each element loop
over the block's threads with a barrier after it (`parallel` "threads"), and leave program ids to
the launch (`program_ids` "launch": `blockIdx.x`). What is left is spelled here, one C++ expression
or statement per op. Math functions are the overloaded names (`exp`, `rsqrt`, ...), which CUDA has
for float and double and the CPU shim provides; f16/bf16 math is widened to f32 first.
"""

from __future__ import annotations

import dataclasses
import re

from compiler.backends.cuda.syntax import CUDA_SYNTAX
from compiler.backends.emitter import STRUCTURED_OPS
from compiler.backends.operators import (
    INFIX,
    LIBM_MATH,
    MATH,
    MATH_DTYPES,
    OPERAND_DTYPES,
    WRAPPING,
    atomic,
    compare,
    infix,
    wrapping,
)
from compiler.backends.target import OpText, Target

# C++ integer division truncates toward zero, as the IR's idiv, and `%` takes the sign of the
# dividend, as its irem. A zero divisor traps on a CPU: masked-off lanes divide by what a masked
# load left there, so a zero divisor is taken as 1 (any value is right for a zero divisor).
_GUARDED = "({1} == 0 ? {1} + 1 : {1})"
_DIVISIONS = {"arith.idiv": f"{{0}} / {_GUARDED}", "arith.irem": f"{{0}} % {_GUARDED}"}
# Offsets in 32 bits while the launcher finds they fit (`compiler/runtime/index_width.py`), else
# the 64-bit form (`wide_index`): one `{index}` spelling of each id serves both.
_PROGRAM_IDS = ("({index})blockIdx.x", "({index})blockIdx.y", "({index})blockIdx.z")
# The thread count is the launch's, fixed at compile time (`num_warps`): on a GPU a constant, so
# loops over a thread's share have constant trip counts (ntc_cuda_device.h, NTC_THREADS).
_THREAD_IDS = ("({index})threadIdx.x", "({index})NTC_THREADS({num_warps} * 32)")


def _ids(index: str) -> dict[str, object]:
    ids = tuple(text.format(index=index) for text in _PROGRAM_IDS)
    thread_id, threads = (text.replace("{index}", index) for text in _THREAD_IDS)
    return {
        "index.thread_id": thread_id,
        "index.num_threads": threads,
        "index.program_id": lambda op: ids[op.attrs["axis"]],
    }


# mem.alloc {scope}: the declaration's qualifier.
_SCOPES = {"shared": "__shared__ __align__(32) ", "local": ""}
_ACCUMULATOR = "fragment"
_PRIVATE = "private"


def _load(op: OpText) -> str:
    """`buffer[offset]`; masked: `other` (default 0) where the mask is false, nothing read."""
    buffer, offset, *mask = op.args
    element = f"{buffer}[{offset}]"
    if not mask:
        return element
    other = op.fields.get("other", "0")
    return f"({mask[0]} ? {element} : ({op.fields['result_dtype']})({other}))"


def _store(op: OpText) -> str:
    buffer, offset, value, *mask = op.args
    statement = f"{buffer}[{offset}] = {value};"
    return f"if ({mask[0]}) {{ {statement} }}" if mask else statement


def _alloc(op: OpText) -> str:
    """An array; one of the `accumulator` scope (a block-wide dot's f32 sum) is the warps'
    tensor-core accumulators, `ntc_accumulator` (ntc_cuda_device.h). Shared arrays start at
    32-byte boundaries, which tensor-core loads and stores need."""
    scope = op.attrs.get("scope", "local")
    if scope == _PRIVATE:  # a thread's share of the elements (ssa.lower_parallel)
        threads = f"{op.fields['num_warps']} * 32"
        share = f"NTC_ROUNDS({op.attrs['size']}, {threads}, {op.attrs.get('lanes', 1)})"
        return f"{op.fields['dtype']} {op.fields['name']}[{share}];"
    if scope == _ACCUMULATOR:
        rows, columns = op.attrs["shape"]
        shape = f"{rows}, {columns}, {op.fields['num_warps']}, {op.fields['operand_dtype']}"
        return f"ntc_accumulator<{shape}> {op.fields['name']};"
    return f"{_SCOPES[scope]}{op.fields['dtype']} {op.fields['name']}[{op.attrs['size']}];"


_COMBINE = {"sum": "ntc_add", "max": "ntc_max", "min": "ntc_min"}


def _array_reduce(op: OpText) -> str:
    outer, length, inner = op.attrs["shape"]
    combine = _COMBINE[op.attrs["kind"]]
    return f"ntc_reduce<{outer}, {length}, {inner}>({op.args[0]}, {op.args[1]}, {combine}());"


SPELLING = {
    **infix(INFIX),
    **_DIVISIONS,
    **{name: f"{name.split('.')[1]}({{0}})" for name in MATH + LIBM_MATH},
    "math.pow": "pow({0}, {1})",
    "math.fmod": "fmod({0}, {1})",
    "math.fma": "fma({0}, {1}, {2})",
    "math.isnan": "isnan({0})",
    "arith.max": "ntc_max()({0}, {1})",
    "arith.min": "ntc_min()({0}, {1})",
    "arith.neg": "-{0}",
    "arith.not": "!{0}",  # of an i1
    "arith.constant": "{value}",  # the declaration gives it its type
    "arith.cmp": compare,
    "arith.cast": "({dtype})({0})",
    "arith.bitcast": "ntc_bitcast<{dtype}>({0})",
    "mem.atomic": atomic(
        "ntc_atomic_{kind}(&{buffer}[{offset}], {value})", "({cond} ? {update} : ({dtype})(0))"
    ),
    "select.where": "({0} ? {1} : {2})",
    **_ids("int"),
    "mem.load": _load,
    "mem.store": _store,
    "mem.alloc": _alloc,
    "mem.read": "{0}[{1}]",
    "mem.write": "{0}[{1}] = {2};",  # an accumulator's by slot (ntc_accumulator::operator[])
    "mem.owned_slots": "ntc_owned_slots({0})",
    "mem.owned_position": "ntc_owned_position({0}, {1})",
    "mem.dot": "ntc_dot<{m}, {n}, {k}, {accumulate}>({0}, {1}, {2});",
    "mem.copy": "ntc_copy({0}, {1});",  # into or out of an accumulator
    "mem.reduce": _array_reduce,
    "mem.barrier": "__syncthreads();",
    "mem.load_lanes": "ntc_load_lanes<{lanes}>({0} + {1}, {2});",
    "mem.store_lanes": "ntc_store_lanes<{lanes}>({0}, {1} + {2});",
}

_DTYPES = {
    "i1": "bool",
    **{f"i{b}": f"int{b}_t" for b in (8, 16, 32, 64)},
    **{f"u{b}": f"uint{b}_t" for b in (8, 16, 32, 64)},
    "f16": "__half",
    "bf16": "__nv_bfloat16",
    "f32": "float",
    "f64": "double",
    "index": "int",
}
# Signed i32 and i64 arithmetic in their unsigned types, where C++ defines it to wrap (i8 and i16
# compute in int, out of overflow's reach).
_WRAPPING_DOMAIN = {"i32": "u32", "i64": "u64"}
SPELLING.update(
    {
        name: wrapping(
            SPELLING[name],
            _DTYPES,
            _WRAPPING_DOMAIN,
            lambda text, to: f"({_DTYPES[to]})({text})",
        )
        for name in WRAPPING
    }
)


def _names_used(texts: list[str]) -> frozenset[str]:
    """The C++ names in spellings; members (`.x`) and format fields (`{0}`, `{dtype}`) left out."""
    return frozenset(
        re.findall(r"(?<![.\w])[A-Za-z_]\w*", re.sub(r"\{[^{}]*\}", " ", " ".join(texts)))
    )


_TEXTS = [s for s in SPELLING.values() if isinstance(s, str)]
_TEXTS += [*_PROGRAM_IDS, *_DTYPES.values(), *_SCOPES.values(), "ntc_accumulator"]
_TEXTS += [*_COMBINE.values(), "ntc_reduce", "NTC_ROUNDS", *_THREAD_IDS]

TARGET = Target(
    name="cuda",
    device="cpu",
    legal_ops=frozenset(SPELLING) | STRUCTURED_OPS,
    spelling=SPELLING,
    dtype_spelling=_DTYPES,
    memory_scopes={"global": "global", "tile": "shared", "scalar": "local", "private": _PRIVATE},
    syntax=dataclasses.replace(CUDA_SYNTAX, reserved=CUDA_SYNTAX.reserved | _names_used(_TEXTS)),
    capabilities={
        "value_semantics": False,
        "program_ids": "launch",
        "parallel": "threads",
        "unit_step_loops": False,
        # Tiles live in __shared__ arrays: 32 x 32 f32 is 4 KB, so a kernel's few tiles stay
        # within the 48 KB of static shared memory a CUDA block may declare.
        "tile_cap": 32,
        "max_warps": 8,  # 256 threads: a 32 x 32 tile gives each thread four elements
        "shared_memory": True,
        "index_bits": 32,
        # A dot of f16 or bf16 tiles, or of f32 ones permitting TF32 products, whose dims are
        # whole 16 x 16 x 16 tensor-core tiles is one block-wide ntc_dot (WMMA on a GPU; the CPU
        # shim loops), summed in the warps' accumulator fragments, registers, for as long as the
        # sum lives: see ntc_cuda_device.h. Each thread reaches its own elements of them (its
        # slots), so a loop that rescales a sum before adding a dot rescales the fragments.
        "array_dot": {
            "dtypes": ("f16", "bf16", "tf32"),
            "multiple": 16,
            "accumulator": _ACCUMULATOR,
            "accumulator_slots": True,
        },
        # Reductions of these (the types warp shuffles move) are one block-wide ntc_reduce, of a
        # source that needs no more shared memory than a 64 x 64 f32 tile to hold.
        "array_reduce": {"dtypes": ("f32", "f64", "i32", "i64"), "max_elements": 4096},
        # A tile computed per element where it is used is held in an array instead where its
        # element costs a math function and is read more than once, if shared memory takes it
        # as it takes a reduction's source.
        "held_elements": 4096,
        # A launch specializes the kernel to its unit strides and 16-byte aligned buffers
        # (compiler/runtime/specialization.py), and a thread's consecutive elements of such a
        # buffer load and store as vectors of up to 16 bytes (ntc_load_lanes: ld.global.v4).
        "specialize": {"alignment": 16},
        "vector_access": {"bytes": 16},
    },
    operand_dtypes={
        **OPERAND_DTYPES,
        "math.pow": MATH_DTYPES,
        "math.abs": MATH_DTYPES,  # abs(__half) is ambiguous in C++: halves widen to f32
    },
    declaring_ops=frozenset({"mem.alloc"}),
    # Past 2^31 elements: every index, the size and stride parameters included, a `long long`.
    wide_index={"index": "long long", "spelling": _ids("long long")},
)

# One source for both devices: the CPU runs it through the host shim, a GPU compiles it with nvcc.
# On a GPU its arrays are static `__shared__` ones, of which a block may declare 48 KB (the host
# shim has no such limit).
TARGETS = {
    "cpu": TARGET,
    "cuda": dataclasses.replace(
        TARGET,
        device="cuda",
        capabilities={**TARGET.capabilities, "static_shared_bytes": 48 * 1024},
    ),
}
