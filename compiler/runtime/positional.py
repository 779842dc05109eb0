"""A plan's steady-state call on a handle's positional arguments: the arguments packed by
position (the plan's index arguments fixed beside them) and the overlap check made on the data
pointers the call's signature read anyway (`compiler/frontend/call_signature.py`).

The overlap check (`overlap.py`) compares each written buffer with every other buffer argument.
The signature fixes each buffer's sizes, strides and dtype, so the byte span each can touch,
relative to its data pointer, is worked out once; a call compares those spans at its pointers and
makes the full check (storages, the very same view) only where two of them meet, which views of
separate memory never do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch

from compiler.runtime.overlap import checked_buffers, compared_pairs, span, warn_overlaps
from compiler.runtime.plan import LaunchPlan

# A call: (the positional arguments, the buffers' data pointers, the stack level an overlap
# warning names).
PositionalCall = Callable[[tuple, tuple, int], None]


def positional_call(
    plan: LaunchPlan,
    parameters: Sequence[str],
    buffers: Sequence[str],
    bindings: Mapping[str, object],
) -> PositionalCall | None:
    """`plan` called on positional arguments. `parameters`: the handle's parameter names in
    order; `buffers`: those read as buffers, in the order of the pointers a call passes;
    `bindings`: the plan's first call's. None where the kernel takes an argument that is neither
    a parameter nor fixed by the plan, or a buffer that is not one of `buffers` (a nested
    tensor's values and offsets)."""
    position = {name: i for i, name in enumerate(parameters)}
    fixed = list(plan.fixed)
    values = []
    for name in plan.names:  # the kernel's arguments, in order
        if name in plan.fixed:
            values.append(f"fixed[{fixed.index(name)}]")
        elif name in position:
            values.append(f"args[{position[name]}]")
        else:
            return None
    pairs = _overlap_pairs(plan, buffers, bindings)
    if pairs is None:
        return None
    meets = []
    for i, i_low, i_high, j, j_low, j_high, same_layout in pairs:
        at_i, at_j = f"pointers[{i}]", f"pointers[{j}]"
        meet = f"{at_i} + {i_low} < {at_j} + {j_high} and {at_j} + {j_low} < {at_i} + {i_high}"
        # the very same view (an in-place update) is no overlap
        meets.append(f"({meet} and {at_i} != {at_j})" if same_layout else f"({meet})")
    packed = f"[{', '.join(values)}]"
    lines = ["def call(args, pointers, stacklevel):"]
    lines += (
        [f"    if {' or '.join(meets)}:", "        warn(args, stacklevel + 1)"] if meets else []
    )
    lines.append(
        f"    plan.run(plan.adapt({packed}))"
        if plan.unused or plan.views
        else f"    plan.run({packed})"
    )

    def warn(args: tuple, stacklevel: int) -> None:
        bound = dict(zip(parameters, args, strict=True))
        warn_overlaps(plan.artifact, bound, stacklevel)

    namespace = {"plan": plan, "fixed": tuple(plan.fixed.values()), "warn": warn}
    exec("\n".join(lines), namespace)  # our own text: argument positions and byte offsets
    return namespace["call"]


def _overlap_pairs(
    plan: LaunchPlan, buffers: Sequence[str], bindings: Mapping[str, object]
) -> list[tuple] | None:
    """(i, its span's start and end relative to its pointer, j, the same, whether the two have
    one layout) for each pair of buffers the full check compares, i and j indexing the
    pointers; None where a buffer the check compares is not one of `buffers`."""
    checked = checked_buffers(plan.artifact, bindings)
    if not set(checked) <= set(buffers):
        return None
    relative = {}
    for name, tensor in checked.items():
        start, end = span(tensor)
        relative[name] = buffers.index(name), start - tensor.data_ptr(), end - tensor.data_ptr()
    return [
        (*relative[name], *relative[other], _layout(checked[name]) == _layout(checked[other]))
        for name, other in compared_pairs(plan.artifact, checked)
    ]


def _layout(tensor: torch.Tensor) -> tuple:
    return tensor.shape, tensor.stride(), tensor.dtype
