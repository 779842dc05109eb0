"""Checks of what `Tensor` and its meta-operations are given, each failing with the value, what
was expected and how to write it (`tensor.py` holds the operations themselves)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from compiler.dsl.symbol import Expr

Size = Expr | int


def check_count(shape: tuple, what: str, values: Sequence[Any], hint: str) -> None:
    """`values` gives one entry per dimension of a tensor of `shape`."""
    if not isinstance(values, Sequence):
        example = (values, *[-1] * (len(shape) - 1))
        raise TypeError(
            f"{what} must be a tuple with one entry per dimension of the tensor of shape "
            f"{shape}, not {values!r}; write {example!r} for instance"
        )
    if len(values) != len(shape):
        raise ValueError(
            f"{what} {tuple(values)} has {len(values)} entries but the tensor of shape "
            f"{shape} has {len(shape)} dimensions; {hint}"
        )


def require_positive(value: Size, what: str, hint: str) -> None:
    if isinstance(value, int) and value < 1:
        raise ValueError(f"{what} is {value}; it must be a positive int{hint}")


def normalize_dim(dim: int, count: int, what: str) -> int:
    if not isinstance(dim, numbers.Integral) or not -count <= dim < count:
        raise IndexError(f"{what} {dim!r} is out of range; expected an int in [{-count}, {count})")
    return int(dim) % count


def per_dim_options(
    options: Mapping[str, Any] | Sequence[Mapping[str, Any] | None] | None, ndim: int
) -> tuple[dict[str, Any], ...]:
    if options is None or isinstance(options, Mapping):
        return tuple(dict(options or {}) for _ in range(ndim))
    options = tuple(options)  # any iterable, a generator included (NineToothed takes one)
    if len(options) != ndim:
        raise ValueError(
            f"shape_options has {len(options)} entries for {ndim} dimensions; give one dict "
            "(or None) per dimension, or a single dict for all of them"
        )
    return tuple(dict(entry or {}) for entry in options)
