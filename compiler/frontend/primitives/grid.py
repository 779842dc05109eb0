"""`program_id` and `num_programs`: where a program is in its launch. NineToothed launches one
program per outermost tile of the first tensor parameter, on a 1-D grid: axis 0 counts them, axes 1
and 2 have one program each. Both are int32, as Triton's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.index_domain import Index
from compiler.ir.core import Value


@dataclass(frozen=True)
class Grid:
    arith: Arith
    program_id: Value  # this program's index on axis 0
    size: Callable[[], Index]  # the number of programs, emitted where it is asked for


def program_id(grid: Grid, axis: object) -> Value:
    return _int32(grid, grid.program_id if _axis("program_id", axis) == 0 else 0)


def num_programs(grid: Grid, axis: object) -> Value:
    return _int32(grid, grid.size() if _axis("num_programs", axis) == 0 else 1)


def _axis(name: str, axis: object) -> int:
    if type(axis) is not int or axis not in (0, 1, 2):
        raise CompileError(
            f"ntl.{name}(axis) takes axis 0, 1 or 2 known when the program compiles, got "
            f"{axis!r}; NineToothed's grid is 1-D: axis 0 holds every program"
        )
    return axis


def _int32(grid: Grid, value: Index) -> Value:
    if isinstance(value, Value):
        return grid.arith.cast(value, "i32")
    return grid.arith.constant(value, "i32")


PRIMITIVES: dict[str, Callable] = {f.__name__: f for f in (program_id, num_programs)}


def call_grid_primitive(grid: Grid, name: str, args: list, kwargs: dict) -> Value:
    try:
        return PRIMITIVES[name](grid, *args, **kwargs)
    except TypeError as error:
        raise CompileError(f"ntl.{name}(axis): {error}") from None
