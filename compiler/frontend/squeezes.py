"""The dimensions an arrangement squeezes, for the launch to check they have one element.

`squeeze` removes size-1 dimensions. One whose size is a symbol (`x.tile((8, 16)).tile((1, -1))
.squeeze(0)` squeezes the ceil(rows / 8) row tiles) is known only at launch, and where it is more
than 1 the kernel would read and write at index 0 alone: part of the tensor left out, a wrong
answer with no error (NineToothed gives one); one of no elements leaves nothing out (an empty
input). A size past 1 known here is refused here; a symbolic one is recorded (`unit_dims`) and
checked at each launch (compiler/runtime/unit_dims.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from compiler.dsl import views
from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError
from compiler.frontend.symbols import bind, python_expr
from compiler.ir.core import Value

FIX = (
    "squeeze removes size-1 dimensions only, and a larger one would be read at its first index "
    "alone; squeeze a dimension of one element (tile by its whole size, or by 1) or index it"
)


def unit_dims(
    names: Sequence[str],
    arranged: Sequence[Tensor],
    constexprs: Mapping[str, object],
    sizes: Mapping[str, Value],
) -> list[list[str]]:
    """[parameter, its squeezed size as an expression over the kernel's arguments] for each
    squeezed dimension whose size is not known yet."""
    found = []
    for name, tensor in zip(names, arranged, strict=True):
        for size in _squeezed_sizes(tensor):
            bound = bind(size, constexprs)
            if isinstance(bound, int):
                if bound > 1:  # none: nothing is left out
                    raise CompileError(
                        f"{name}'s arrangement squeezes a dimension of {bound} elements; {FIX}"
                    )
                continue
            expression = python_expr(bound, {symbol: v.name for symbol, v in sizes.items()})
            found.append([name, expression])
    return found


def _squeezed_sizes(tensor: Tensor) -> list[object]:
    """The parent's size of every dimension a view in `tensor`'s making squeezes, at any level."""
    sizes, seen, pending = [], set(), list(tensor.levels())
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node.view, views.Squeeze):
            sizes += [node.view.parent.shape[d] for d in node.view.dims]
        for parent in views.parents(node.view):
            pending += parent.levels()
    return sizes
