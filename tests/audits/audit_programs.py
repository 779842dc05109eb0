"""Expression trees over the primitive set, written as NineToothed programs and evaluated in torch.

A tree is a tuple: `(leaf,)` for an input (`x`, `y`, or `r`, a row's reduction), `("const", c)`,
`(unary, a)`, `(binary, a, b)` or `("where", p, q, a, b)` for `where(p > q, a, b)`. `log` and
`sqrt` take `abs(a) + 1` and `abs(a)`, so that every tree is defined on every input.
"""

from __future__ import annotations

import torch

UNARY = ("exp", "exp2", "log", "sqrt", "abs", "sigmoid")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
REDUCTIONS = ("sum", "max", "min")
CONSTANTS = (0.5, 2.0, -1.5, 3.0)

_NTL_UNARY = {
    "exp": "ntl.exp({})",
    "exp2": "ntl.exp2({})",
    "log": "ntl.log(ntl.abs({}) + 1.0)",
    "sqrt": "ntl.sqrt(ntl.abs({}))",
    "abs": "ntl.abs({})",
    "sigmoid": "ntl.sigmoid({})",
}
_NTL_BINARY = {
    "add": "({} + {})",
    "sub": "({} - {})",
    "mul": "({} * {})",
    "div": "({} / {})",
    "maximum": "ntl.maximum({}, {})",
    "minimum": "ntl.minimum({}, {})",
}
_TORCH_UNARY = {
    "exp": torch.exp,
    "exp2": torch.exp2,
    "log": lambda a: torch.log(a.abs() + 1.0),
    "sqrt": lambda a: torch.sqrt(a.abs()),
    "abs": torch.abs,
    "sigmoid": torch.sigmoid,
}
_TORCH_BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
}
IDENTITY = {"sum": "0.0", "max": 'float("-inf")', "min": 'float("inf")'}

ELEMENTWISE_PROGRAM = """\
import ninetoothed.language as ntl
from ninetoothed import Tensor, block_size

BLOCK_SIZE = block_size()


def arrangement(x, y, output, BLOCK_SIZE=BLOCK_SIZE):
    return x.tile((BLOCK_SIZE,)), y.tile((BLOCK_SIZE,)), output.tile((BLOCK_SIZE,))


def application(x, y, output):
    output = {expression}  # noqa: F841


tensors = (Tensor(1), Tensor(1), Tensor(1))
"""

# One program per row: `total` gets the row's reduction of `pre`, `output` the row of `post`.
REDUCTION_PROGRAM = """\
import ninetoothed.language as ntl
from ninetoothed import Symbol, Tensor

BLOCK_SIZE = Symbol("BLOCK_SIZE", constexpr=True)


def arrangement(x, y, total, output, BLOCK_SIZE=BLOCK_SIZE):
    row = (1, BLOCK_SIZE)
    return x.tile(row), y.tile(row), total.tile((1,)), output.tile(row)


def application(x, y, total, output):
    pre = {pre}
    loaded = x  # noqa: F841 - x.offsets() reads the offsets of the last access of x
    inside = x.offsets(-1)[None, :] < x.source.shape[-1]
    r = ntl.{reduction}(ntl.where(inside, pre, {identity}))
    total = r  # noqa: F841
    output = {post}  # noqa: F841


tensors = (Tensor(2), Tensor(2), Tensor(1), Tensor(2))
"""


def to_ntl(tree: tuple) -> str:
    kind, *children = tree
    if kind == "const":
        return repr(children[0])
    if kind in _NTL_UNARY:
        return _NTL_UNARY[kind].format(to_ntl(children[0]))
    if kind in _NTL_BINARY:
        return _NTL_BINARY[kind].format(*map(to_ntl, children))
    if kind == "where":
        p, q, a, b = map(to_ntl, children)
        return f"ntl.where({p} > {q}, {a}, {b})"
    return kind


def to_torch(tree: tuple, leaves: dict[str, torch.Tensor]) -> torch.Tensor:
    """The tree's value on `leaves`, in their dtype, broadcast over them."""
    kind, *children = tree
    like = next(iter(leaves.values()))
    if kind == "const":
        return torch.tensor(children[0], dtype=like.dtype)
    values = [to_torch(child, leaves) for child in children]
    if kind in _TORCH_UNARY:
        return _TORCH_UNARY[kind](*values)
    if kind in _TORCH_BINARY:
        return _TORCH_BINARY[kind](*values)
    if kind == "where":
        p, q, a, b = values
        return torch.where(p > q, a, b)
    return leaves[kind]


def reduce_rows(kind: str, values: torch.Tensor) -> torch.Tensor:
    """A row reduction of an (M, N) tensor, kept as (M, 1)."""
    if kind == "sum":
        return values.sum(-1, keepdim=True)
    return getattr(values, f"a{kind}")(-1, keepdim=True)
