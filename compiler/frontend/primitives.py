"""The `ntl` primitives, each spelled as generic IR ops.

Every primitive is a composition of registered ops (`math.*`, `reduce.*`, `linalg.dot`, ...);
none is a kernel. Functions take the frontend's `Arith` and already-lowered operands.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.frontend.arith import Arith
from compiler.frontend.dtypes import ir_dtype
from compiler.ir.core import Value
from compiler.ir.types import is_float


def _unary(op_name: str) -> Callable:
    def lower(arith: Arith, x: object) -> Value:
        return arith.unary(op_name, x)

    return lower


def _binary(op_name: str) -> Callable:
    def lower(arith: Arith, a: object, b: object) -> object:
        return arith.binary(op_name, a, b)

    return lower


def _reduction(op_name: str) -> Callable:
    def lower(arith: Arith, x: Value, axis: int | None = None, keep_dims: bool = False) -> Value:
        x = arith.as_value(x)
        axes = range(len(x.type.shape)) if axis is None else [axis % len(x.type.shape)]
        for done, ax in enumerate(sorted(axes)):
            x = arith.b.value(op_name, x, axis=ax - (done if axis is None else 0))
        if keep_dims:
            for ax in sorted(axes):
                x = arith.b.value("tile.expand_dims", x, axis=ax)
        return x

    return lower


def _full(arith: Arith, shape: tuple, value: object, dtype: str = "fp32") -> Value:
    return arith.constant(value, ir_dtype(dtype), tuple(shape))


def _zeros(arith: Arith, shape: tuple, dtype: str = "fp32") -> Value:
    return _full(arith, shape, 0, dtype)


def _arange(arith: Arith, start: int, end: int) -> Value:
    index = arith.b.value("tile.arange", size=end - start)
    return arith.binary("arith.add", index, start) if start else index


def _dot(arith: Arith, a: Value, b: Value) -> Value:
    result_dtype = "f32" if is_float(a.type.dtype) else "i32"
    return arith.b.value("linalg.dot", a, b, dtype=result_dtype)


def _trans(arith: Arith, x: Value) -> Value:
    perm = list(range(len(x.type.shape)))[::-1]
    return arith.b.value("tile.trans", x, perm=perm)


def _where(arith: Arith, cond: object, a: object, b: object) -> object:
    return arith.where(cond, a, b)


def _cast(arith: Arith, x: object, dtype: str) -> Value:
    return arith.cast(arith.as_value(x), ir_dtype(dtype))


def _sigmoid(arith: Arith, x: object) -> Value:
    x = arith.unary("math.exp", arith.binary("arith.sub", 0.0, x))
    return arith.binary("arith.div", 1.0, arith.binary("arith.add", 1.0, x))


PRIMITIVES: dict[str, Callable] = {
    "exp": _unary("math.exp"),
    "exp2": _unary("math.exp2"),
    "log": _unary("math.log"),
    "log2": _unary("math.log2"),
    "sqrt": _unary("math.sqrt"),
    "rsqrt": _unary("math.rsqrt"),
    "abs": _unary("math.abs"),
    "sin": _unary("math.sin"),
    "cos": _unary("math.cos"),
    "maximum": _binary("arith.max"),
    "minimum": _binary("arith.min"),
    "sum": _reduction("reduce.sum"),
    "max": _reduction("reduce.max"),
    "min": _reduction("reduce.min"),
    "zeros": _zeros,
    "full": _full,
    "arange": _arange,
    "dot": _dot,
    "trans": _trans,
    "where": _where,
    "cast": _cast,
    "sigmoid": _sigmoid,
}
