"""The signature of a kernel call: what the compiled form and every check of a launch depend on,
as a hashable key, so that `KernelHandle` plans a launch once per signature (see
`compiler/runtime/plan.py`) and a steady-state call only looks its plan up.

Per tensor: dtype, device, sizes and strides (the index arguments; they decide the index width,
the grid and its coverage, and which index arguments equal 1 or a multiple) and whether its data
starts aligned as the target's specialization asks. Per other argument: its type (which decides
its dtype where the program declares none), and its value where it is compiled in (a constexpr
parameter). Keyword arguments (constexpr and meta values, or parameters by name) by name and
value.

Calls that no key describes take the general path each time: nested (jagged) tensors, whose
offsets are data, and unhashable values.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import torch

from compiler.backends.registry import get_target


@functools.cache
def alignment(backend: str, device: str) -> int:
    """The bytes the target specializes buffers' data pointers on (0: it does not)."""
    return (get_target(backend, device).capability("specialize") or {}).get("alignment", 0)


def call_key(
    head: tuple,
    args: tuple,
    kwargs: Mapping[str, object],
    compiled_in: frozenset[int],
    alignment: int,
) -> tuple | None:
    """`head`: what else the key holds (the handle's backend and device); `compiled_in`:
    positions of constexpr parameters; `alignment`: the bytes the target specializes data
    pointers on (0: none). Called on every launch: one loop, no helper calls for tensors."""
    parts = list(head)
    for position, arg in enumerate(args):
        if isinstance(arg, torch.Tensor):
            if arg.is_nested:
                return None
            aligned = alignment and arg.data_ptr() % alignment == 0
            parts.append((arg.dtype, arg.device, arg.shape, arg.stride(), aligned))
        else:
            parts.append((type(arg), arg) if position in compiled_in else type(arg))
    if kwargs:
        for name in sorted(kwargs):
            parts.append((name, _keyword(kwargs[name], alignment)))
    key = tuple(parts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _keyword(value: object, alignment: int) -> object:
    """A keyword argument's part: a parameter passed by name, or a value compiled in."""
    if isinstance(value, torch.Tensor):
        return call_key((), (value,), {}, frozenset(), alignment)
    return (type(value), value)
