"""The signature of a kernel call: what the compiled form and every check of a launch depend on,
as a hashable key, so that `KernelHandle` plans a launch once per signature (see
`compiler/runtime/plan.py`) and a steady-state call only looks its plan up.

Per buffer: dtype, device, sizes and strides (the index arguments; they decide the index width,
the grid and its coverage, and which index arguments equal 1 or a multiple) and whether its data
starts aligned as the target's specialization asks. Per number: its type and, for an int, whether
it fits 32 bits or is past 2^63 (which decide its dtype where the program declares none). Per
constexpr parameter: its type and value. Keyword arguments (constexpr and meta values) by name,
type and value.

A handle reads the key with a function written for its parameters (`signature_reader`): one flat
expression per call, no loop and no type tests, as a launch is made for every call. Calls that no
key describes take the general path each time: unhashable values, and calls the reader cannot
read (a number where a buffer goes, another count of arguments), where compiling them then says
what is wrong. So do calls with a nested (jagged) tensor, whose offsets are data: the key holds
its ragged size as the symbol torch gives it, but the handle keeps no plan for such a call
(`compiler/runtime/positional.py` makes none).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from compiler.backends.registry import get_target

# The kinds of parameter a reader reads.
BUFFER, NUMBER, CONSTANT = "buffer", "number", "constant"


@functools.cache
def alignment(backend: str, device: str) -> int:
    """The bytes the target specializes buffers' data pointers on (0: it does not)."""
    return (get_target(backend, device).capability("specialize") or {}).get("alignment", 0)


Reader = Callable[[tuple], tuple[tuple, tuple[int, ...]]]


@dataclass(frozen=True)
class Reading:
    """How generated code reads a call's signature: `lines` bind the parameters (`a0`, ...) and
    the buffers' data pointers (`pa0`, ...) from `args`; `parts`, the key's expressions over
    them; `pointers`, the buffers' pointer names in order."""

    lines: tuple[str, ...]
    parts: tuple[str, ...]
    pointers: tuple[str, ...]


_INT_CLASS = (
    "(0 if -2147483648 <= {p} <= 2147483647 else 2 if {p} > 9223372036854775807 else 1) "
    "if type({p}) is int else 0"
)


def number_dtype(value: numbers.Number) -> str:
    """A Python number's IR type, as Triton specialises on it: a bool i1, a float f32, an int
    i32 where it fits, u64 from 2^63, else i64 (a reader keys calls by the class)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return "i1" if isinstance(value, bool) else "f32"  # a float (numpy's too) is f32
    return "i32" if -(2**31) <= value < 2**31 else "u64" if value >= 2**63 else "i64"


def reading(kinds: Sequence[str], alignment: int) -> Reading:
    """`kinds[i]`: the kind of parameter i (BUFFER, NUMBER or CONSTANT); `alignment`: the bytes
    the target specializes data pointers on (0: none)."""
    params = [f"a{i}" for i in range(len(kinds))]
    buffers = [p for p, kind in zip(params, kinds, strict=True) if kind == BUFFER]
    parts = []
    for param, kind in zip(params, kinds, strict=True):
        if kind == BUFFER:
            parts += [f"{param}.dtype", f"{param}.device", f"{param}.shape", f"{param}.stride()"]
            parts += [f"p{param} % {alignment} == 0"] if alignment else []
        elif kind == NUMBER:  # the type, and an int's class (i32, i64, u64: `number_dtype`)
            parts.append(f"type({param})")
            parts.append(_INT_CLASS.format(p=param))
        else:
            parts += [f"type({param})", param]
    lines = [f"{''.join(p + ', ' for p in params)}= args"]
    lines += [f"p{b} = {b}.data_ptr()" for b in buffers]
    return Reading(tuple(lines), tuple(parts), tuple(f"p{b}" for b in buffers))


def signature_reader(read: Reading) -> Reader:
    """`read(args)`: (the key of a call on positional `args`, its buffers' data pointers in
    order), read as `read` says. Raises AttributeError where a buffer's argument is not a tensor,
    ValueError on another count of arguments and RuntimeError on a tensor without strides or
    storage."""
    lines = ["def read(args):", *(f"    {line}" for line in read.lines)]
    pointers = "".join(f"{p}, " for p in read.pointers)
    lines.append(f"    return ({''.join(p + ', ' for p in read.parts)}), ({pointers})")
    namespace: dict = {}
    exec("\n".join(lines), namespace)  # our own text: parameter positions, nothing of the call
    return namespace["read"]


def keyword_key(kwargs: Mapping[str, object]) -> tuple:
    """The part of the key the keyword arguments (constexpr and meta values) make."""
    return (*sorted(kwargs.items()), *map(type, kwargs.values()))
