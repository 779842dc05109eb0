"""`ninetoothed.language` (ntl): the primitives an application may call.

They are markers: the frontend lowers each call to generic IR ops
(`compiler/frontend/primitives.py`).
Calling one outside an application is a mistake, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.dsl.dtype import (
    bfloat16,
    float16,
    float32,
    float64,
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


abs = Primitive("abs")  # noqa: A001 - NineToothed's name
arange = Primitive("arange")
cast = Primitive("cast")
cos = Primitive("cos")
dot = Primitive("dot")
exp = Primitive("exp")
exp2 = Primitive("exp2")
full = Primitive("full")
log = Primitive("log")
log2 = Primitive("log2")
max = Primitive("max")  # noqa: A001
maximum = Primitive("maximum")
min = Primitive("min")  # noqa: A001
minimum = Primitive("minimum")
rsqrt = Primitive("rsqrt")
sigmoid = Primitive("sigmoid")
sin = Primitive("sin")
sqrt = Primitive("sqrt")
sum = Primitive("sum")  # noqa: A001
trans = Primitive("trans")
where = Primitive("where")
zeros = Primitive("zeros")

__all__ = [
    "Primitive",
    "abs",
    "arange",
    "bfloat16",
    "cast",
    "cos",
    "dot",
    "exp",
    "exp2",
    "float16",
    "float32",
    "float64",
    "full",
    "int16",
    "int32",
    "int64",
    "int8",
    "log",
    "log2",
    "max",
    "maximum",
    "min",
    "minimum",
    "rsqrt",
    "sigmoid",
    "sin",
    "sqrt",
    "sum",
    "trans",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "where",
    "zeros",
]
