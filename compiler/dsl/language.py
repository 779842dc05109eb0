"""`ninetoothed.language` (ntl): what an application may call.

As in NineToothed, this is Triton's language plus `libdevice`: any public name resolves here.
Callables are markers (`Primitive`); the frontend lowers each call
to generic IR ops (`compiler/frontend/primitives.py`) or, for a name it does not implement yet,
refuses it at the call's line. Calling one outside an application is a mistake, and says so.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from compiler.dsl.dtype import (
    DType,
    bfloat16,
    float8e4nv,
    float8e5,
    float16,
    float32,
    float64,
    int1,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)


@dataclass(frozen=True)
class Primitive:
    name: str

    def __call__(self, *args: object, **kwargs: object) -> object:
        raise RuntimeError(
            f"ntl.{self.name} only has a meaning inside an application compiled by make() or jit"
        )


class constexpr:  # noqa: N801 - Triton's name
    """`x: ntl.constexpr = ...` marks a compile-time value; here every Python value is one."""

    def __init__(self, value: object):
        self.value = value


class PropagateNan(enum.Enum):
    """Triton's NaN handling for `maximum`, `minimum` and `clamp`: NONE (the default) passes a NaN
    operand over, as Triton does (IEEE maxNum); ALL gives NaN wherever an operand is NaN."""

    NONE = 0
    ALL = 0xFFFF


class _Namespace:
    """`ntl.libdevice.pow`, `ntl.math.exp`, ...: each attribute is a primitive of that name."""

    def __init__(self, name: str):
        self.__name__ = name

    def __getattr__(self, name: str) -> Primitive:
        if name.startswith("__"):
            raise AttributeError(name)
        return primitive(name)


libdevice = _Namespace("libdevice")
math = _Namespace("math")

_DTYPES = (
    bfloat16,
    float16,
    float32,
    float64,
    float8e4nv,
    float8e5,
    int1,
    int8,
    int16,
    int32,
    int64,
)
_DTYPES += (uint8, uint16, uint32, uint64)
dtype = DType


def __getattr__(name: str) -> Primitive:
    """Any other public name is a primitive; the frontend lowers the ones it knows and refuses the
    rest at the call's line, naming what it has."""
    if name.startswith("_"):
        raise AttributeError(f"ninetoothed.language has no attribute {name!r}")
    return primitive(name)


@functools.cache
def primitive(name: str) -> Primitive:
    """The one Primitive of a name, so that `ntl.sum is ntl.sum` as with a module's functions."""
    return Primitive(name)
