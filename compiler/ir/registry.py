"""The closed registry of IR operations.

Every op the compiler may create is listed here with its arity, attributes, effects and result-type
rule. Ops are fine-grained primitives (arith, math, reduce, linalg, scf, select, tile, index, mem):
a kernel is a composition of them, never a node named after an operator. The rules themselves are
in `compiler/ir/type_rules.py` and, for the mem dialect, `compiler/ir/memory_rules.py`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.ir import memory_rules, type_rules
from compiler.ir.types import Type

Infer = Callable[[list[Type], dict], list[Type]]


# Ops that write a buffer (global memory), not an array of the program's own.
BUFFER_WRITES = frozenset({"mem.store", "mem.atomic", "mem.store_lanes", "mem.copy_box_out"})


@dataclass(frozen=True)
class OpDef:
    name: str
    operands: tuple[int, int | None]  # (min, max); max None means variadic
    infer: Infer | None  # None: result types are given explicitly (constant, scf.if)
    attrs: tuple[str, ...] = ()
    optional_attrs: tuple[str, ...] = ()
    regions: int = 0
    effect: str = "pure"  # pure | read | write | alloc | control
    description: str = ""
    results: int | None = field(default=None)  # fixed count when infer is None; None = any

    @functools.cached_property  # asked for every op by several passes
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]


def _defs() -> list[OpDef]:
    same, floats, integers = type_rules.same, type_rules.float_same, type_rules.integer_same
    binary = {
        "add": ("a + b", same),
        "sub": ("a - b", same),
        "mul": ("a * b", same),
        "div": ("a / b (true division, of floats)", floats),
        "idiv": ("integer a / b, truncating toward zero", integers),
        "irem": ("integer remainder, sign of a", integers),
        "max": ("elementwise maximum; a NaN operand gives the other (IEEE maxNum)", same),
        "min": ("elementwise minimum; a NaN operand gives the other (IEEE minNum)", same),
        # (which zero they give for +0.0 and -0.0 is left open, as by maxNum and C's fmax)
        "and": ("bitwise/logical and", type_rules.bitwise),
        "or": ("bitwise/logical or", type_rules.bitwise),
        "xor": ("bitwise/logical xor", type_rules.bitwise),
    }
    unary_math = {
        "exp": "e ** x",
        "exp2": "2 ** x",
        "log": "natural logarithm",
        "log2": "base-2 logarithm",
        "sqrt": "square root",
        "rsqrt": "1 / sqrt(x)",
        "abs": "absolute value",
        "sin": "sine",
        "cos": "cosine",
        "floor": "largest integral value <= x",
        "ceil": "smallest integral value >= x",
        "erf": "error function",
        "tanh": "hyperbolic tangent",
        "atan": "arc tangent",
    }
    defs = [OpDef(f"arith.{n}", (2, 2), rule, description=d) for n, (d, rule) in binary.items()]
    shifts = {"shl": "a << b", "shr": "a >> b: arithmetic on signed integers, logical on unsigned"}
    defs += [
        OpDef(f"arith.{n}", (2, 2), type_rules.integer_same, description=d)
        for n, d in shifts.items()
    ]
    defs += [
        OpDef("arith.neg", (1, 1), type_rules.same, description="-a"),
        OpDef("arith.not", (1, 1), type_rules.boolean_same, description="logical not of an i1"),
        OpDef("arith.constant", (0, 0), None, attrs=("value",), results=1, description="splat"),
        OpDef(
            "arith.cmp", (2, 2), type_rules.compare, attrs=("pred",), description="comparison -> i1"
        ),
        OpDef(
            "arith.cast",
            (1, 1),
            type_rules.cast,
            attrs=("dtype",),
            description="convert element type",
        ),
        OpDef(
            "arith.bitcast",
            (1, 1),
            type_rules.bitcast,
            attrs=("dtype",),
            description="the same bits as another element type of the same width",
        ),
    ]
    defs += [
        OpDef(f"math.{n}", (1, 1), type_rules.float_same, description=d)
        for n, d in unary_math.items()
    ]
    defs += [
        OpDef("math.pow", (2, 2), type_rules.float_same, description="a ** b"),
        OpDef(
            "math.fmod",
            (2, 2),
            type_rules.float_same,
            description="remainder of a / b with the sign of a (C's fmod; Triton's float %)",
        ),
        OpDef(
            "math.fma",
            (3, 3),
            type_rules.fused,
            description="a * b + c rounded once, of f32 or f64 (a narrower float is exact in f64)",
        ),
        OpDef("math.isnan", (1, 1), type_rules.float_test, description="x is NaN -> i1"),
        OpDef("select.where", (3, 3), type_rules.where, description="cond ? a : b, elementwise"),
        OpDef(
            "linalg.dot",
            (2, 2),
            type_rules.dot,
            attrs=("dtype",),
            optional_attrs=("precision",),
            description="[M,K] x [K,N]",
        ),
        OpDef("tile.arange", (0, 0), type_rules.arange, attrs=("size",), description="0 .. size-1"),
        OpDef(
            "tile.broadcast",
            (1, 1),
            type_rules.broadcast,
            attrs=("shape",),
            description="splat/stretch",
        ),
        OpDef(
            "tile.expand_dims",
            (1, 1),
            type_rules.expand_dims,
            attrs=("axis",),
            description="insert a 1",
        ),
        OpDef(
            "tile.reshape",
            (1, 1),
            type_rules.reshape,
            attrs=("shape",),
            description="same elements",
        ),
        OpDef(
            "tile.trans", (1, 1), type_rules.trans, attrs=("perm",), description="permute tile dims"
        ),
        OpDef(
            "tile.sort",
            (1, 1),
            type_rules.sort,
            attrs=("axis", "descending"),
            description="integers in order along axis (equal ones are indistinguishable)",
        ),
        OpDef(
            "tile.gather",
            (2, 2),
            type_rules.gather,
            attrs=("axis",),
            description="result[.., i, ..] = source[.., index[.., i, ..], ..] along axis",
        ),
        OpDef(
            "scan.sum",
            (1, 1),
            type_rules.along_axis,
            attrs=("axis", "reverse"),
            description="running sum along axis (from the end if reverse)",
        ),
        OpDef(
            "index.program_id", (0, 0), type_rules.index, attrs=("axis",), description="program id"
        ),
        OpDef(
            "index.meta",
            (0, 0),
            type_rules.index,
            attrs=("name",),
            description="meta symbol's value",
        ),
        OpDef(
            "mem.load", (2, 3), memory_rules.load, optional_attrs=("other", "scope"), effect="read"
        ),
        OpDef("mem.store", (3, 4), memory_rules.store, optional_attrs=("scope",), effect="write"),
        OpDef(
            "mem.atomic",
            (3, 4),
            memory_rules.atomic,
            attrs=("kind",),
            optional_attrs=("scope",),
            effect="write",
            description="atomic update per element: add, max, min, and, or, xor, xchg, cas",
        ),
        OpDef(
            "scf.for",
            (3, None),
            type_rules.for_loop,
            regions=1,
            # stages: software pipelining (ssa.pipeline_loops); lanes: the loop over a thread's
            # consecutive positions (ssa.lower_parallel), whose accesses may go as vectors
            optional_attrs=("stages", "lanes"),
            effect="control",
            description="counted loop: lower bound, upper bound, a positive step",
        ),
        OpDef("scf.if", (1, 1), None, regions=2, effect="control", description="two-way branch"),
        OpDef(
            "scf.while",
            (0, None),
            type_rules.while_loop,
            # the condition (the carried values in, one i1 yielded), then the body (the carried
            # values in, their next values yielded); the results are the values the check ended
            regions=2,
            effect="control",
            description="loop while a runtime condition holds",
        ),
        OpDef(
            "scf.yield",
            (0, None),
            type_rules.no_results,
            effect="control",
            description="region results",
        ),
        # Loop-level forms for targets without tile values (see ssa.lower_tiles_to_loops).
        OpDef(
            "scf.parallel",
            (1, 1),
            type_rules.parallel,
            regions=1,
            # shape: the tile whose elements the iterations are (row-major), for a target that
            # runs them as a nest of its dims; the extent is then their product
            optional_attrs=("shape",),
            effect="control",
            description="independent iterations 0 .. n-1 (a target may spread them)",
        ),
        OpDef(
            "scf.grid",
            (1, 1),
            type_rules.indices,
            regions=1,
            effect="control",
            description="the programs 0 .. n-1 as a region (program ids as a loop)",
        ),
        OpDef(
            "mem.alloc",
            (0, 0),
            memory_rules.alloc,
            attrs=("dtype", "size"),
            # shape: of the tile it holds, for a 2-D scope; operand_dtype: for a dot's
            # accumulator, the operands' element type (tensor-core fragments depend on it);
            # lanes: for a private array, how many consecutive positions a thread takes a round
            optional_attrs=("scope", "shape", "operand_dtype", "lanes"),
            effect="alloc",
            description="a 1-D array of the program's own",
        ),
        OpDef("mem.read", (2, 2), memory_rules.read, effect="read", description="array element"),
        OpDef(
            "mem.write",
            (3, 3),
            memory_rules.write,
            effect="write",
            description="set an array element",
        ),
        OpDef(
            "mem.owned_slots",
            (1, 1),
            memory_rules.owned_slots,
            description="how many elements of an array of a per-thread layout (a tensor-core "
            "accumulator) this thread holds: its slots, which mem.read and mem.write index",
        ),
        OpDef(
            "mem.owned_position",
            (2, 2),
            memory_rules.owned_position,
            description="(array, slot): the row-major position of the element this thread holds "
            "in the slot, or the array's size where the slot holds none",
        ),
        OpDef(
            "mem.dot",
            (3, 3),
            memory_rules.array_dot,
            attrs=("m", "n", "k", "accumulate"),
            optional_attrs=("transpose_b",),
            effect="write",
            description="c = a @ b (c += a @ b where accumulate; b held [n, k] where transpose_b) "
            "on row-major arrays, by every thread of the program together",
        ),
        OpDef(
            "mem.reduce",
            (2, 2),
            memory_rules.array_reduce,
            attrs=("kind", "shape"),
            effect="write",
            description="an array's [outer, length, inner] combined along length into another, "
            "by every thread of the program together",
        ),
        OpDef(
            "mem.copy",
            (2, 2),
            memory_rules.copy,
            attrs=("shape",),
            effect="write",
            description="a whole array into another (the tile of `shape` it holds), by all threads",
        ),
        OpDef(
            "mem.copy_box_in",
            (5, None),
            memory_rules.box_in,
            attrs=("shape",),
            effect="write",
            description="(buffer, bases.., sizes.., strides.., array): the buffer's box of "
            "`shape` at the bases into the array, zero where a dim is out of 0 .. size-1, by "
            "all threads",
        ),
        OpDef(
            "mem.copy_box_out",
            (5, None),
            memory_rules.box_out,
            attrs=("shape",),
            effect="write",
            description="(array, buffer, bases.., sizes.., strides..): the array into the "
            "buffer's box of `shape` at the bases, where every dim is in 0 .. size-1, by all "
            "threads",
        ),
        OpDef(
            "mem.load_lanes",
            (3, 3),
            memory_rules.load_lanes,
            attrs=("lanes",),
            effect="write",
            description="(buffer, offset, array): buffer[offset .. offset+lanes-1] into the "
            "array, one vector read of one thread; the offset is a multiple of lanes and the "
            "buffer aligned to lanes elements",
        ),
        OpDef(
            "mem.store_lanes",
            (3, 3),
            memory_rules.store_lanes,
            attrs=("lanes",),
            effect="write",
            description="(array, buffer, offset): the array into buffer[offset .. "
            "offset+lanes-1], one vector write of one thread, aligned as mem.load_lanes",
        ),
        OpDef(
            "index.thread_id", (0, 0), type_rules.index, description="this thread in its program"
        ),
        OpDef("index.num_threads", (0, 0), type_rules.index, description="threads per program"),
        OpDef(
            "mem.barrier",
            (0, 0),
            type_rules.no_results,
            effect="write",
            description="threads of a program wait for each other; memory is visible after",
        ),
    ]
    defs += [
        OpDef(
            f"reduce.{n}", (1, 1), type_rules.reduce, attrs=("axis",), description=f"{n} along axis"
        )
        for n in type_rules.REDUCE_KINDS
    ]
    return defs


OPS: dict[str, OpDef] = {d.name: d for d in _defs()}


def lookup(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(
            f"{name!r} is not a registered op; compose registered ops or add a generic one "
            "to compiler/ir/registry.py"
        ) from None
