"""Spellings shared by the languages that write TVM's TIR in Python (TVMScript and TileLang):
truncating integer division, `T.max`/`T.min`, `T.Select`, IEEE's `!=` and NaN tests on floats
(`_compare`), and memory access as buffer indexing,
a masked load through `T.if_then_else` (which reads only where the mask holds) and a masked store
as a one-line `if`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from compiler.backends.operators import INFIX, WRAPPING, Convert, compare, infix, wrapping
from compiler.backends.target import OpText, Spelling
from compiler.ir.types import BIT_WIDTHS, is_float


def masked_load(typed: str) -> Callable[[OpText], str]:
    """`buffer[offset]`, or `T.if_then_else(mask, buffer[offset], other)` with `other` spelled by
    `typed` (fields dtype, value): how the language writes a typed constant."""

    def load(op: OpText) -> str:
        buffer, offset, *mask = op.args
        element = f"{buffer}[{offset}]"
        if not mask:
            return element
        other = typed.format(dtype=op.fields["result_dtype"], value=op.fields.get("other", "0"))
        return f"T.if_then_else({mask[0]}, {element}, {other})"

    return load


def _compare(op: OpText) -> str:
    """TIR's `!=` on floats is ordered (false when either side is NaN), the IR's is IEEE's (true):
    NaN sides are tested for explicitly (TIR's simplifier turns `not ==` back into `!=`). A float
    compared with itself is a NaN test, spelled as one, since the simplifier decides `x == x` as if
    NaN did not exist. Bools compare as int8: TVM's LLVM lowering compares i1 values with `fcmp`,
    which LLVM rejects."""
    (x, y), pred = op.args, op.attrs["pred"]
    if op.operand_dtypes[0] == "i1":
        return compare(dataclasses.replace(op, args=tuple(f'T.Cast("int8", {a})' for a in op.args)))
    if not is_float(op.operand_dtypes[0]) or pred in ("lt", "gt"):
        return compare(op)
    if x == y:
        return f"T.isnan({x})" if pred == "ne" else f"T.Not(T.isnan({x}))"
    if pred == "ne":
        return f"T.Or({x} != {y}, T.Or(T.isnan({x}), T.isnan({y})))"
    return compare(op)


def sequential_atomic(typed: str, cell: str) -> Callable[[OpText], str]:
    """A scalar `mem.atomic` where one program runs at a time (the CPU forms): the old value goes
    into a one-element local array (`cell`, fields name and dtype: a Let of the element could be
    read again after the store), the combined one into memory, both where the mask holds; the op's
    name is the old value. `typed` spells the zero a masked-off element reads (dtype, value)."""

    def atomic(op: OpText) -> str:
        buffer, offset, value, *mask = op.args
        name, dtype, element = op.fields["name"], op.fields["result_dtype"], f"{buffer}[{offset}]"
        old = f"{name}_old"
        # An atomic kind combines as the arith op of its name does; an exchange replaces, and a
        # compare-and-swap where the element equals what it compares with (in the mask's place).
        kind = op.attrs["kind"]
        if kind == "cas":
            update = f"T.if_then_else({old}[0] == {mask.pop()}, {value}, {old}[0])"
        elif kind in _EXTREMES:
            update = _extreme(kind, f"{old}[0]", value, op.operand_dtypes[2])
        elif kind == "xchg":
            update = value
        else:
            update = TIR_SPELLING[f"arith.{kind}"].format(f"{old}[0]", value)
        read = element
        if mask:
            read = f"T.if_then_else({mask[0]}, {element}, {typed.format(dtype=dtype, value='0')})"
        store = f"if {mask[0]}: {element} = {update}" if mask else f"{element} = {update}"
        lines = [cell.format(name=old, dtype=dtype), f"{old}[0] = {read}", store]
        return "\n".join([*lines, f"{name} = {old}[0]"])

    return atomic


def _store(op: OpText) -> str:
    buffer, offset, value, *mask = op.args
    statement = f"{buffer}[{offset}] = {value}"
    return f"if {mask[0]}: {statement}" if mask else statement


def typed_arithmetic(typed: str) -> dict[str, Callable[[OpText], str]]:
    """The ops whose TIR spelling needs a constant of the operands' type, spelled by `typed`
    (fields dtype, value): TIR makes a bare Python int an int32, which an unsigned or narrow
    operand does not meet (`b + 1` of a u8 is an int32, `-x` of a u8 fails to parse).

    - idiv and irem truncate (TIR's `//` floors). A zero divisor traps on a CPU, and masked-off
      lanes divide by what a masked load left there: it is taken as 1.
    - neg and sub of unsigned values are two's complement, `~x + 1` and `a + (~b + 1)`: the
      wrapped values, as in C; TVM's simplifier takes an unsigned `0 - x` for 0 (it bounds the
      result by 0 - 0 above and by 0 below). Elsewhere `-x` (`0 - x` would lose the sign of a
      float zero) and `a - b`."""

    def constant(op: OpText, value: str) -> str:
        return typed.format(dtype=op.fields["result_dtype"], value=value)

    def guarded(function: str) -> Callable[[OpText], str]:
        def spell(op: OpText) -> str:
            divisor = op.args[1]
            guard = f"T.Select({divisor} == 0, {constant(op, '1')}, {divisor})"
            return f"T.{function}({op.args[0]}, {guard})"

        return spell

    return {
        "arith.idiv": guarded("truncdiv"),
        "arith.irem": guarded("truncmod"),
        "arith.neg": lambda op: (
            f"~{op.args[0]} + {constant(op, '1')}"
            if op.operand_dtypes[0].startswith("u")
            else f"-{op.args[0]}"
        ),
        "arith.sub": lambda op: (
            f"{op.args[0]} + (~{op.args[1]} + {constant(op, '1')})"
            if op.operand_dtypes[0].startswith("u")
            else f"{op.args[0]} - {op.args[1]}"
        ),
    }


# The 64-bit type each narrow integer type's WRAPPING ops compute in: i64 holds every result but a
# product of two u32 values, which passes 2^63 and is exact in u64.
NARROW_IN_I64 = dict.fromkeys(("i8", "i16", "i32", "u8", "u16", "u32"), "i64")
EXACT_IN = {"arith.mul": {"u32": "u64"}}


def wrapping_arithmetic(
    spelling: Mapping[str, Spelling], cast: str, typed: str, dtypes: Mapping[str, str]
) -> dict[str, Callable[[OpText], str]]:
    """`spelling`'s WRAPPING ops made modular on integers narrower than 64 bits: TVM computes an i8
    in i8 and gives LLVM its signed ops as `nsw` (overflow-free), and its simplifier bounds an
    unsigned result to [0, max] as if it never wrapped (`0 - x` of a u32 folds to 0), so they
    compute in a 64-bit type where they are exact (`EXACT_IN`). Back in their type the result is
    reduced to its range there first, where it is exact too: TVM folds a cast of a constant out of
    range to an error. 64-bit arithmetic, with no wider type to compute in, keeps TVM's reading,
    that it does not overflow (`ssa.wrap_64_bit_arithmetic` computes it on halves where it might).
    `cast` (fields dtype, value) converts, `typed` (the same) spells a constant."""

    def converter(domain: Mapping[str, str]) -> Convert:
        def convert(text: str, target: str) -> str:
            if target not in domain:  # into the wide type
                return cast.format(dtype=dtypes[target], value=text)
            wide = domain[target]
            bits = BIT_WIDTHS[target]
            mask = typed.format(dtype=dtypes[wide], value=(1 << bits) - 1)
            if target.startswith("u"):
                reduced = f"({text}) & {mask}"
            else:  # two's complement: shift into [0, 2^bits), mask, shift back
                half = typed.format(dtype=dtypes[wide], value=1 << (bits - 1))
                reduced = f"((({text}) + {half}) & {mask}) - {half}"
            return cast.format(dtype=dtypes[target], value=reduced)

        return convert

    spelled = {}
    for name in WRAPPING:
        domain = NARROW_IN_I64 | EXACT_IN.get(name, {})
        spelled[name] = wrapping(spelling[name], dtypes, domain, converter(domain))
    return spelled


def _libm(name: str) -> Callable[[OpText], str]:
    """C's `name` (`fmod`, `fma`), called in libm: TIR's own `T.fmod` has no lowering for C or
    LLVM, and `T.fma` none for C."""

    def spell(op: OpText) -> str:
        dtype = op.fields["result_dtype"].removeprefix("T.")
        function = {"float32": f"{name}f", "float64": name}[dtype]  # others are widened first
        return f'T.call_pure_extern("{dtype}", "{function}", {", ".join(op.args)})'

    return spell


_EXTREMES = {"max": ">", "min": "<"}
_BOOL_EXTREMES = {"max": "|", "min": "&"}


def _extreme(kind: str, a: str, b: str, dtype: str) -> str:
    """arith.max and arith.min: a NaN operand gives the other (IEEE maxNum and minNum), as the
    IR has them; TIR's own `T.max` on floats leaves NaN to the comparison its target makes, and
    on bools has no LLVM lowering (the max of bools is their or, the min their and)."""
    if dtype == "i1":
        return f"({a} {_BOOL_EXTREMES[kind]} {b})"
    if not is_float(dtype):
        return f"T.{kind}({a}, {b})"
    return f"T.Select(T.Or({a} {_EXTREMES[kind]} {b}, T.isnan({b})), {a}, {b})"


def _spell_extreme(kind: str) -> Callable[[OpText], str]:
    return lambda op: _extreme(kind, *op.args, op.operand_dtypes[0])


TIR_SPELLING = {
    **infix(INFIX),
    "math.fmod": _libm("fmod"),
    "math.fma": _libm("fma"),
    "arith.max": _spell_extreme("max"),
    "arith.min": _spell_extreme("min"),
    "arith.cmp": _compare,
    "select.where": "T.Select({0}, {1}, {2})",
    "mem.store": _store,
    "mem.read": "{0}[{1}]",
    "mem.write": "{0}[{1}] = {2}",
}


# Both run TIR's way on the CPU: no tile values, programs as a loop in the kernel, serial element
# loops, loops that count from a start with step 1, int32 indices, tiles of at most 32 per dim
# (arrays walked element by element: small tiles keep compiles and loops short). TIR's i64 becomes
# C's `int64_t` in the C and CUDA sources both write, whose overflow C compilers take as impossible.
TIR_CAPABILITIES = {
    "overflow_free_64": frozenset({"i64"}),
    "value_semantics": False,
    "program_ids": "loop",
    "parallel": "serial",
    "unit_step_loops": True,
    "tile_cap": 32,
    "index_bits": 32,
}
