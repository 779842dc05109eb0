"""A plan's steady-state call on a handle's positional arguments: the arguments packed by
position (the plan's index arguments fixed beside them) and the overlap check made on the data
pointers the call's signature read anyway (`compiler/frontend/call_signature.py`).

The overlap check (`overlap.py`) compares each written buffer with every other buffer argument.
The signature fixes each buffer's sizes, strides and dtype, so the byte span each can touch,
relative to its data pointer, is worked out once; a call compares those spans at its pointers and
makes the full check (storages, the very same view) only where two of them meet, which views of
separate memory never do.

A handle calls the plan of the last signature it planned through `guarded_call`: the signature
read and compared with that plan's key in the same generated function, so a loop's calls build,
hash and look up no key; any other call reads its key and looks its plan up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch

from compiler.frontend.call_signature import Reading
from compiler.runtime.overlap import checked_buffers, compared_pairs, span, warn_overlaps
from compiler.runtime.plan import LaunchPlan

# A call: (the positional arguments, the buffers' data pointers, the stack level an overlap
# warning names).
PositionalCall = Callable[[tuple, tuple, int], None]
# What reading a signature raises on arguments no key describes (call_signature.py).
READ_ERRORS = "(AttributeError, TypeError, ValueError, RuntimeError)"


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
    body = _body(plan, parameters, buffers, bindings, lambda i: f"pointers[{i}]")
    if body is None:
        return None
    return _defined(plan, parameters, ["def call(args, pointers, stacklevel):", *body], {})


def guarded_call(
    plan: LaunchPlan,
    parameters: Sequence[str],
    buffers: Sequence[str],
    bindings: Mapping[str, object],
    read: Reading,
    key: tuple,
    keywords: Mapping[str, object],
) -> Callable[[tuple, dict, int], bool] | None:
    """`plan` called on positional arguments and keyword arguments (constexpr and meta values)
    whose signature is `key` and `keywords`, reading it as `read` says inline: False (and
    nothing run) where the signature differs. A loop's calls, one signature each time, run this
    alone: no key built, hashed or looked up. Arguments no key describes are not its signature
    (what the kernel raises is raised); None as `positional_call`."""
    body = _body(plan, parameters, buffers, bindings, lambda i: read.pointers[i])
    if body is None:
        return None
    positional = key[: len(read.parts)]  # the keywords' part follows
    checks = [
        _check(part, value, f"k{i}")
        for i, (part, value) in enumerate(zip(read.parts, positional, strict=True))
    ]
    checks += ["kwargs == keywords" if keywords else "not kwargs"]  # types: `keyword_key`'s
    checks += [f"type(kwargs[{name!r}]) is t{i}" for i, name in enumerate(keywords)]
    lines = ["def call(args, kwargs, stacklevel):", "    try:"]
    lines += [*(f"        {line}" for line in read.lines), f"        same = {' and '.join(checks)}"]
    lines += [f"    except {READ_ERRORS}:", "        return False", "    if not same:"]
    lines += ["        return False", *body, "    return True"]
    names = {f"k{i}": value for i, value in enumerate(positional)}
    types = {f"t{i}": type(value) for i, value in enumerate(keywords.values())}
    return _defined(plan, parameters, lines, {**names, **types, "keywords": dict(keywords)})


def _check(part: str, value: object, name: str) -> str:
    """`part` (the expression) equals `value` (named `name`): a truth as itself (the parts that
    are one are comparisons, or a constexpr whose type the key checks too), a dtype, a type or
    None by identity (there is one object of each), anything else by `==`, as a key is."""
    if value is True or value is False:
        return f"({part})" if value else f"not ({part})"
    if isinstance(value, torch.dtype | type) or value is None:
        return f"({part}) is {name}"
    return f"({part}) == {name}"


def _body(
    plan: LaunchPlan,
    parameters: Sequence[str],
    buffers: Sequence[str],
    bindings: Mapping[str, object],
    pointer: Callable[[int], str],
) -> list[str] | None:
    """The lines that check overlaps and run `plan` on `args`, `pointer(i)` spelling buffer i's
    data pointer; None where `plan` takes what positional arguments cannot give."""
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
        at_i, at_j = pointer(i), pointer(j)
        ends = [f"{at}{_plus(offset)}" for at, offset in ((at_i, i_low), (at_j, j_high))]
        ends += [f"{at}{_plus(offset)}" for at, offset in ((at_j, j_low), (at_i, i_high))]
        meet = f"{ends[0]} < {ends[1]} and {ends[2]} < {ends[3]}"
        # the very same view (an in-place update) is no overlap
        meets.append(f"({meet} and {at_i} != {at_j})" if same_layout else f"({meet})")
    packed = f"[{', '.join(values)}]"
    lines = [f"    if {' or '.join(meets)}:", "        warn(args, stacklevel + 1)"] if meets else []
    for name, low, high in plan.integers:  # a number's value is not in the signature
        at = values[plan.names.index(name)]
        lines += [
            f"    if not {low} <= {at} <= {high}:",
            f"        plan.refuse_integer({name!r}, {at})",
        ]
    lines.append(
        f"    plan.run(plan.adapt({packed}))"
        if plan.unused or plan.views
        else f"    plan.run({packed})"
    )
    return lines


def _plus(offset: int) -> str:
    return f" + {offset}" if offset > 0 else f" - {-offset}" if offset else ""


def _defined(plan: LaunchPlan, parameters: Sequence[str], lines: list[str], names: dict):
    def warn(args: tuple, stacklevel: int) -> None:
        bound = dict(zip(parameters, args, strict=True))
        warn_overlaps(plan.artifact, bound, stacklevel)

    namespace = {"plan": plan, "fixed": tuple(plan.fixed.values()), "warn": warn, **names}
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
