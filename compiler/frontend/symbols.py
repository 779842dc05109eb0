"""Symbolic sizes (`compiler.dsl.symbol.Expr`) as the frontend sees them.

A size is either known now (an int, after constexpr symbols are bound), a meta symbol (a block size
the schedule pass binds later, usable as a tile dimension), or a runtime value computed in SSA from
the kernel's size arguments.
"""

from __future__ import annotations

from collections.abc import Mapping

from compiler.dsl.symbol import Expr, as_expr
from compiler.errors import CompileError


def bind(expr: object, constexprs: Mapping[str, int]) -> object:
    """Substitute the constexpr values; an Expr that becomes constant becomes an int."""
    if not isinstance(expr, Expr):
        return expr
    bound = expr.substitute(constexprs) if constexprs else expr
    return bound.value if bound.op == "const" else bound


def next_power_of_two(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def tile_dim(size: object, constexprs: Mapping[str, int]) -> int | str:
    """A tile dimension: ints round up to a power of two (masks cover the rest); meta symbols stay
    symbolic until `ssa.select_schedule`; anything else cannot size a tile."""
    written, size = size, bind(size, constexprs)
    if isinstance(size, str):  # already a tile dim (the shape of a tile value)
        return size
    if isinstance(size, int):
        if size < 1:
            raise CompileError(
                f"tile size {written} is {size}; a tile size must be a positive int: give "
                f"{written} a value of 1 or more"
            )
        return next_power_of_two(size)
    if size.op == "sym" and size.meta:
        return size.name
    raise CompileError(
        f"tile size {size} is not known at compile time; tile by a block_size() or a constexpr "
        "Symbol, or pass the value as a constexpr keyword argument"
    )


def python_expr(expr: object, names: Mapping[str, str]) -> str:
    """Python source for an Expr, symbol names mapped through `names` (to kernel arguments)."""
    expr = as_expr(expr)
    if expr.op == "const":
        return str(expr.value)
    if expr.op == "sym":
        return names.get(expr.name, expr.name)
    if expr.op == "neg":
        return f"(-{python_expr(expr.args[0], names)})"
    symbol = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}[expr.op]
    left, right = (python_expr(a, names) for a in expr.args)
    return f"({left} {symbol} {right})"
