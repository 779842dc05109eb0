"""Generic decompositions of IR ops into other IR ops, keyed by op name.

`ssa.lower_backend_intrinsics` applies one to every op a target does not accept; each entry lists
the ops it produces so that the pass can tell in advance whether a target can be served at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from compiler.ir import Builder, Kernel, Operation, Value
from compiler.ir.types import is_float
from compiler.passes.helpers import axis_decompositions, math_decompositions
from compiler.passes.helpers.constants import make_constant
from compiler.passes.helpers.rewrite import builder_before, replace_op


@dataclass(frozen=True)
class Decomposition:
    produces: frozenset[str]
    expand: Callable[[Builder, Operation], Value]


def decompose(kernel: Kernel, op: Operation) -> None:
    """Replace `op` by its decomposition, built just before it."""
    replace_op(kernel, op, [DECOMPOSITIONS[op.name].expand(builder_before(op), op)])


def _splat(builder: Builder, value: float, like: Value) -> Value:
    return make_constant(builder, value, like.type)


def _rsqrt(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    return b.value("arith.div", _splat(b, 1.0, x), b.value("math.sqrt", x))


def _exp(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    return b.value("math.exp2", b.value("arith.mul", x, _splat(b, math.log2(math.e), x)))


def _exp2(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    return b.value("math.exp", b.value("arith.mul", x, _splat(b, math.log(2.0), x)))


def _log(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    return b.value("arith.mul", b.value("math.log2", x), _splat(b, math.log(2.0), x))


def _log2(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    return b.value("arith.div", b.value("math.log", x), _splat(b, math.log(2.0), x))


def _select_by(pred: str) -> Callable[[Builder, Operation], Value]:
    """x where it compares `pred` to y, else y; a NaN y gives x (IEEE maxNum, minNum)."""

    def expand(b: Builder, op: Operation) -> Value:
        x, y = op.operands
        keep_x = b.value("arith.cmp", x, y, pred=pred)
        if is_float(x.type.dtype):
            keep_x = b.value("arith.or", keep_x, b.value("arith.cmp", y, y, pred="ne"))
        return b.value("select.where", keep_x, x, y)

    return expand


def _isnan(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    return b.value("arith.cmp", x, x, pred="ne")


def _abs(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    negative = b.value("arith.cmp", x, _splat(b, 0.0, x), pred="lt")
    return b.value("select.where", negative, b.value("arith.neg", x), x)


def _neg(b: Builder, op: Operation) -> Value:
    (x,) = op.operands
    return b.value("arith.sub", _splat(b, 0, x), x)


def _dot(b: Builder, op: Operation) -> Value:
    """`a[M,K] @ b[K,N]` as `sum over K of a[M,K,1] * b[1,K,N]`, in the dot's result dtype."""
    lhs, rhs = (_cast(b, v, op.attrs["dtype"]) for v in op.operands)
    (m, k), n = lhs.type.shape, rhs.type.shape[1]
    lhs = b.value("tile.broadcast", b.value("tile.expand_dims", lhs, axis=2), shape=[m, k, n])
    rhs = b.value("tile.broadcast", b.value("tile.expand_dims", rhs, axis=0), shape=[m, k, n])
    return b.value("reduce.sum", b.value("arith.mul", lhs, rhs), axis=1)


def _cast(b: Builder, value: Value, dtype: str) -> Value:
    return value if value.type.dtype == dtype else b.value("arith.cast", value, dtype=dtype)


def _entry(expand: Callable[[Builder, Operation], Value], *produces: str) -> Decomposition:
    return Decomposition(frozenset(produces), expand)


DECOMPOSITIONS: dict[str, Decomposition] = {
    "math.rsqrt": _entry(_rsqrt, "arith.constant", "arith.div", "math.sqrt"),
    "math.exp": _entry(_exp, "arith.constant", "arith.mul", "math.exp2"),
    "math.exp2": _entry(_exp2, "arith.constant", "arith.mul", "math.exp"),
    "math.log": _entry(_log, "arith.constant", "arith.mul", "math.log2"),
    "math.log2": _entry(_log2, "arith.constant", "arith.div", "math.log"),
    **{
        name: _entry(expand, *produces)
        for module in (math_decompositions, axis_decompositions)
        for name, (expand, produces) in module.EXPANSIONS.items()
    },
    "math.abs": _entry(_abs, "arith.constant", "arith.cmp", "arith.neg", "select.where"),
    "arith.max": _entry(_select_by("gt"), "arith.cmp", "arith.or", "select.where"),
    "arith.min": _entry(_select_by("lt"), "arith.cmp", "arith.or", "select.where"),
    "math.isnan": _entry(_isnan, "arith.cmp"),
    "arith.neg": _entry(_neg, "arith.constant", "arith.sub"),
    "linalg.dot": _entry(
        _dot, "arith.cast", "tile.expand_dims", "tile.broadcast", "arith.mul", "reduce.sum"
    ),
}
