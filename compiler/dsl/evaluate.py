"""Evaluate an arrangement on numpy arrays, as NineToothed 0.26's `Tensor.eval` does.

For checking only: the result has one axis per dimension of every level, outermost level first,
and each entry is the linear offset (under contiguous strides) of the source element that
position reads, or -1 where the mask is false. It runs the same `views.resolve` as the frontend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from compiler.dsl.symbol import Expr, Symbol
from compiler.dsl.views import Node, resolve


class NumpyDomain:
    """The index-map domain over numpy integer arrays; symbols take their values from `env`."""

    def __init__(self, env: Mapping[str, int]):
        self.env = env

    def const(self, value: int) -> np.ndarray:
        return np.asarray(value, dtype=np.intp)

    def expr(self, expr: Expr) -> np.ndarray:
        return np.asarray(expr.evaluate(self.env), dtype=np.intp)

    def add(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return left + right

    def sub(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return left - right

    def mul(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return left * right

    def floordiv(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return np.floor_divide(left, right)

    def mod(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return np.mod(left, right)

    def lt(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return left < right

    def ge(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return left >= right

    def and_(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return left & right


def evaluate(tensor: Node, subs: Mapping[Any, Any] | None = None) -> np.ndarray:
    """The offsets `tensor` reads, like `ninetoothed.Tensor.eval(subs)`.

    `subs` maps a source Tensor to `{"shape": sizes}` and a Symbol to its int value.
    """
    if tensor.source.ndim == 0:
        return np.array(0, dtype=np.intp)
    env = environment(subs or {})
    domain = NumpyDomain(env)

    levels = tensor.levels()
    shape = tuple(_value(size, env) for level in levels for size in level.shape)
    grid = np.indices(shape, dtype=np.intp, sparse=True)
    level_indices, start = [], 0
    for level in levels:
        level_indices.append(grid[start : start + level.ndim])
        start += level.ndim

    source_indices, mask = resolve(tensor, level_indices, domain)
    offset = np.asarray(0, dtype=np.intp)
    stride = 1
    for index, size in reversed(list(zip(source_indices, tensor.source.shape, strict=True))):
        offset = offset + index * stride
        stride *= _value(size, env)
    if mask is not None:
        offset = np.where(mask, offset, -1)
    return np.broadcast_to(offset, shape).astype(np.intp)


def environment(subs: Mapping[Any, Any]) -> dict[str, int]:
    """Symbol name -> value, from `subs`: a source Tensor maps to `{"shape": sizes}` (or anything
    with a `.shape`, another Tensor or an array), a Symbol to its value."""
    env: dict[str, int] = {}
    for key, value in subs.items():
        if isinstance(key, Symbol):
            env[key.name] = int(value)
        elif getattr(key, "source", None) is key:  # a source tensor (views are never their own)
            shape = value["shape"] if isinstance(value, Mapping) else value.shape
            for dim, (size, given) in enumerate(zip(key.shape, shape, strict=True)):
                if isinstance(size, Symbol):
                    env[size.name] = int(given)
                elif isinstance(size, int) and size != given:
                    raise ValueError(
                        f"subs gives size {given} to dimension {dim} of {key.name}, whose size "
                        f"is fixed at {size}; leave that size out of the Tensor to vary it"
                    )
        else:
            raise TypeError(
                f"subs keys are source Tensors (the ones you construct) or Symbols, not {key!r}"
            )
    return env


def _value(size: Expr | int, env: Mapping[str, int]) -> int:
    return size if isinstance(size, int) else size.evaluate(env)
