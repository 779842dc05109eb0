"""Views: how each meta-operation maps a tensor's indices to its parent's, as plain data.

Every derived `Tensor` carries one view record naming its parent tensor(s) and the map's
parameters. `up(indices, arith)` is the whole map: it returns, for each parent, the index vector
this tensor contributes to it. A parent reached from several children (a tile's outer and inner
tensors) gets the sum of their contributions, so a tiled dimension reads `outer * stride + inner *
dilation`.

`resolve` runs these maps from the levels of a hierarchical tensor down to its source and checks
`0 <= index < size` for every index of every tensor it touches, which is NineToothed's mask.
Indices are ints or `Expr`s while they are known statically and domain values once they depend on
a level index; the domain (numpy arrays for the oracle, SSA values for the frontend) supplies
`const`, `expr`, `add`, `sub`, `mul`, `floordiv`, `mod`, `lt`, `ge` and `and_`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from compiler.dsl.symbol import Const, Expr, as_expr

Size = Expr | int
Index = Any


class Node(Protocol):
    """What the maps read of a tensor. `Tensor` (tensor.py) is one; views are data that name
    their parents and never import the class that builds them."""

    source: Node
    view: View | None
    shape: tuple[Size, ...]
    ndim: int

    def levels(self) -> list[Node]: ...


Contribution = tuple[Node, tuple[Index, ...]]


@dataclass(frozen=True)
class TileOuter:
    """The outer tensor of `parent.tile(...)`: index `i` starts at parent index `i * stride`."""

    parent: Node
    strides: tuple[Size, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        return [(self.parent, tuple(map(arith.mul, indices, self.strides)))]


@dataclass(frozen=True)
class TileInner:
    """The inner tensor (a tile) of `parent.tile(...)`: index `j` adds `j * dilation`."""

    parent: Node
    dilation: tuple[Size, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        return [(self.parent, tuple(map(arith.mul, indices, self.dilation)))]


@dataclass(frozen=True)
class Expand:
    """`parent.expand(...)`: the dimensions in `dims` are broadcast and read parent index 0."""

    parent: Node
    dims: tuple[int, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        return [(self.parent, tuple(0 if d in self.dims else i for d, i in enumerate(indices)))]


@dataclass(frozen=True)
class Squeeze:
    """`parent.squeeze(...)`: the parent dimensions in `dims` are gone and read index 0."""

    parent: Node
    dims: tuple[int, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        remaining = iter(indices)
        parent_indices = tuple(
            0 if d in self.dims else next(remaining) for d in range(self.parent.ndim)
        )
        return [(self.parent, parent_indices)]


@dataclass(frozen=True)
class Unsqueeze:
    """`parent.unsqueeze(dim)`: dimension `dim` is new, of size 1, and maps to nothing."""

    parent: Node
    dim: int

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        return [(self.parent, indices[: self.dim] + indices[self.dim + 1 :])]


@dataclass(frozen=True)
class Permute:
    """`parent.permute(dims)`: dimension `d` is parent dimension `dims[d]`."""

    parent: Node
    dims: tuple[int, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        parent_indices = [None] * len(indices)
        for index, parent_dim in zip(indices, self.dims, strict=True):
            parent_indices[parent_dim] = index
        return [(self.parent, tuple(parent_indices))]


@dataclass(frozen=True)
class Flatten:
    """`parent.flatten(...)`: dimension `start` unravels, row-major, into parent dimensions
    `start, start + 1, ...` with the given row-major `strides` (the last is 1)."""

    parent: Node
    start: int
    strides: tuple[Size, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        remainder = indices[self.start]
        unraveled = []
        for position, stride in enumerate(self.strides):
            if position:
                remainder = arith.mod(remainder, self.strides[position - 1])
            unraveled.append(arith.floordiv(remainder, stride))
        before, after = indices[: self.start], indices[self.start + 1 :]
        return [(self.parent, before + tuple(unraveled) + after)]


@dataclass(frozen=True)
class Ravel:
    """`tensor.ravel()`: the dimensions are those of `parents` (the levels of the raveled tensor,
    outermost first) one after another."""

    parents: tuple[Node, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        contributions = []
        start = 0
        for parent in self.parents:
            contributions.append((parent, indices[start : start + parent.ndim]))
            start += parent.ndim
        return contributions


@dataclass(frozen=True)
class Pad:
    """`parent.pad(...)`: index `i` reads parent index `i - before`; the padding is masked."""

    parent: Node
    before: tuple[Size, ...]

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        return [(self.parent, tuple(map(arith.sub, indices, self.before)))]


@dataclass(frozen=True)
class Slice:
    """`parent[..., start::step, ...]` along `dim`: index `i` reads `start + i * step`."""

    parent: Node
    dim: int
    start: Size
    step: int

    def up(self, indices: tuple[Index, ...], arith: Arith) -> list[Contribution]:
        parent_indices = list(indices)
        parent_indices[self.dim] = arith.add(self.start, arith.mul(indices[self.dim], self.step))
        return [(self.parent, tuple(parent_indices))]


View = (
    TileOuter | TileInner | Expand | Squeeze | Unsqueeze | Permute | Flatten | Ravel | Pad | Slice
)


def parents(view: View | None) -> tuple[Node, ...]:
    """The tensors a view reads from; none for a source tensor."""
    if view is None:
        return ()
    if isinstance(view, Ravel):
        return view.parents
    return (view.parent,)


class Arith:
    """Index arithmetic over a domain that stays static (int or Expr) while it can.

    Static operands fold into an int or Expr; `x + 0`, `x * 1` and `x * 0` never reach the domain.
    """

    def __init__(self, domain: Any):
        self.domain = domain

    def lift(self, value: Index) -> Any:
        """`value` as a domain value."""
        if isinstance(value, int):
            return self.domain.const(value)
        if isinstance(value, Const):
            return self.domain.const(value.value)
        if isinstance(value, Expr):
            return self.domain.expr(value)
        return value

    def add(self, left: Index, right: Index) -> Index:
        if _is_static(left) and _is_static(right):
            return _fold(as_expr(left) + right)
        if _is_const(left, 0):
            return right
        if _is_const(right, 0):
            return left
        return self.domain.add(self.lift(left), self.lift(right))

    def sub(self, left: Index, right: Index) -> Index:
        if _is_static(left) and _is_static(right):
            return _fold(as_expr(left) - right)
        if _is_const(right, 0):
            return left
        return self.domain.sub(self.lift(left), self.lift(right))

    def mul(self, left: Index, right: Index) -> Index:
        if _is_static(left) and _is_static(right):
            return _fold(as_expr(left) * right)
        if _is_const(left, 0) or _is_const(right, 0):
            return 0
        if _is_const(left, 1):
            return right
        if _is_const(right, 1):
            return left
        return self.domain.mul(self.lift(left), self.lift(right))

    def floordiv(self, left: Index, right: Index) -> Index:
        if _is_static(left) and _is_static(right):
            return _fold(as_expr(left) // right)
        if _is_const(right, 1):
            return left
        return self.domain.floordiv(self.lift(left), self.lift(right))

    def mod(self, left: Index, right: Index) -> Index:
        if _is_static(left) and _is_static(right):
            return _fold(as_expr(left) % right)
        if _is_const(right, 1):
            return 0
        return self.domain.mod(self.lift(left), self.lift(right))

    def in_bounds(self, index: Index, size: Size) -> Any | None:
        """The domain's `0 <= index < size`, or None when that holds statically."""
        checks = []
        if not (isinstance(index, int) and index >= 0):
            checks.append(self.domain.ge(self.lift(index), self.domain.const(0)))
        if not (isinstance(index, int) and isinstance(size, int) and index < size):
            checks.append(self.domain.lt(self.lift(index), self.lift(size)))
        # A domain may decide a check itself (`True`: the SSA domain knows what is >= 0 and what
        # ranges over a tile dim).
        return functools.reduce(self.and_, [c for c in checks if c is not True], None)

    def and_(self, left: Any | None, right: Any | None) -> Any | None:
        if left is None:
            return right
        if right is None:
            return left
        return self.domain.and_(left, right)


def _is_static(value: Index) -> bool:
    return isinstance(value, int | Expr)


def _is_const(value: Index, number: int) -> bool:
    return _is_static(value) and value == number


def _fold(expr: Expr) -> Size:
    return expr.value if isinstance(expr, Const) else expr


def resolve(
    tensor: Node, level_indices: Sequence[Sequence[Any]], domain: Any
) -> tuple[tuple[Any, ...], Any | None]:
    """Map one index vector per level of `tensor` to its source's indices and the mask.

    Level 0 is `tensor`, level i + 1 is level i's `dtype`. Returns the source indices as domain
    values and the conjunction of every bounds check (None when nothing needed checking).
    """
    levels = tensor.levels()
    if len(level_indices) != len(levels):
        raise ValueError(
            f"resolve needs one index vector per level: {len(levels)} levels, "
            f"got {len(level_indices)}"
        )
    received: dict[int, list[tuple[Index, ...]]] = {}
    for level, indices in zip(levels, level_indices, strict=True):
        if len(indices) != level.ndim:
            raise ValueError(
                f"a level of shape {level.shape} needs {level.ndim} indices, got {len(indices)}"
            )
        received.setdefault(id(level), []).append(tuple(indices))

    arith = Arith(domain)
    mask = None
    sources = []
    for node in _children_first(levels):
        contributions = received[id(node)]
        indices = functools.reduce(
            lambda total, more: tuple(map(arith.add, total, more)), contributions
        )
        for index, size in zip(indices, node.shape, strict=True):
            mask = arith.and_(mask, arith.in_bounds(index, size))
        if node.view is None:
            sources.append(indices)
            continue
        for parent, parent_indices in node.view.up(indices, arith):
            received.setdefault(id(parent), []).append(parent_indices)

    if len(sources) != 1:
        raise ValueError(
            f"the levels of a hierarchical tensor must all derive from one source tensor; "
            f"these derive from {len(sources)}"
        )
    return tuple(map(arith.lift, sources[0])), mask


def _children_first(levels: Sequence[Node]) -> list[Node]:
    """Every tensor the levels derive from, each after all the tensors derived from it."""
    finished: list[Node] = []
    seen: set[int] = set()

    def visit(node: Node) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in parents(node.view):
            visit(parent)
        finished.append(node)

    for level in levels:
        visit(level)
    return finished[::-1]
