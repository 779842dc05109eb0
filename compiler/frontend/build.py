"""Builds the SSA kernel of one specialisation: arranged tensors + application + argument kinds."""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

from compiler.dsl.symbol import Expr
from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError
from compiler.frontend.access import Accessor, Param, TensorRef
from compiler.frontend.application import parameters, unwrap
from compiler.frontend.arith import Arith
from compiler.frontend.context import KernelContext
from compiler.frontend.index_domain import IndexDomain
from compiler.frontend.primitives.grid import Grid
from compiler.frontend.squeezes import unit_dims
from compiler.frontend.statements import FunctionLowerer
from compiler.frontend.symbols import bind, python_expr
from compiler.ir.builder import Builder
from compiler.ir.core import Block, Kernel, Value
from compiler.ir.types import BufferType, ScalarType


@dataclass(frozen=True)
class ArgSpec:
    """How one parameter is passed: a `tensor` buffer, a runtime `scalar`, or a `constant`."""

    kind: str
    dtype: str | None = None
    value: object = None


def build_kernel(
    name: str,
    application,
    arranged: tuple[Tensor, ...],
    specs: list[ArgSpec],
    constexprs: dict[str, int],
) -> Kernel:
    names = parameters(application)
    application, bound = unwrap(application)
    args: list[Value] = []
    sizes: dict[str, Value] = {}
    params: dict[str, object] = {}
    for param_name, tensor, spec in zip(names, arranged, specs, strict=True):
        if spec.kind == "constant":
            params[param_name] = spec.value
        elif spec.kind == "scalar":
            scalar = Value(ScalarType(spec.dtype), param_name)
            args.append(scalar)
            params[param_name] = Param(param_name, tensor, spec.dtype, None, scalar=scalar)
        else:
            buffer = Value(BufferType(spec.dtype), param_name)
            ndim = tensor.source.ndim
            size_args = [Value(ScalarType("index"), f"{param_name}_size_{d}") for d in range(ndim)]
            strides = [Value(ScalarType("index"), f"{param_name}_stride_{d}") for d in range(ndim)]
            args += [buffer, *size_args, *strides]
            for size, arg in zip(tensor.source.shape, size_args, strict=True):
                if isinstance(size, Expr) and size.op == "sym":
                    sizes.setdefault(size.name, arg)
            offsets = None
            if tensor.source.jagged_dim is not None:
                offsets = Value(BufferType("i64"), f"{param_name}_offsets")
                args.append(offsets)
            params[param_name] = Param(
                param_name, tensor, spec.dtype, buffer, strides, offsets=offsets
            )

    # Constexpr symbols given as symbols stay compile-time parameters: sizes are arguments already,
    # any other one becomes an argument of its own.
    symbolic = [n for n, v in constexprs.items() if isinstance(v, Expr)]
    for parameter in symbolic:
        if parameter not in sizes:
            sizes[parameter] = Value(ScalarType("index"), parameter)
            args.append(sizes[parameter])
    _check_unique(application, names, args)
    body = Block()
    kernel = Kernel(name, args, body)
    arith = Arith(Builder(body, numbered=True))
    domain = IndexDomain(arith, body, sizes, constexprs)
    first = _grid_tensor(arranged, specs)
    programs = math.prod(first.shape, start=1)
    grid = Grid(arith, domain.program_id, lambda: domain.expr(programs))
    ctx = KernelContext(arith, domain, Accessor(domain, constexprs), constexprs, grid)
    env = {**bound, **{n: TensorRef(p) if isinstance(p, Param) else p for n, p in params.items()}}
    FunctionLowerer(ctx, application, env).run()

    kernel.attrs["grid"] = _outer_tiles(first, constexprs, sizes)
    # A tensor written only through its source or data pointer (a scatter, an atomic histogram)
    # has no tiles of its own for programs to cover: 0.
    written = ctx.accessor.tile_written
    kernel.attrs["outer_tiles"] = [
        [name, _outer_tiles(tensor, constexprs, sizes) if name in written else "0"]
        for name, tensor, spec in zip(names, arranged, specs, strict=True)
        if spec.kind == "tensor"
    ]
    if symbolic:
        kernel.attrs["constexpr_params"] = symbolic
    squeezed = unit_dims(names, arranged, constexprs, sizes)
    if squeezed:  # checked at each launch: compiler/runtime/unit_dims.py
        kernel.attrs["unit_dims"] = squeezed
    metas = meta_symbols(arranged)
    kernel.attrs["meta"] = [[s.name, s.lower_bound, s.upper_bound] for s in metas]
    return kernel


def _check_unique(application, names: list[str], args: list[Value]) -> None:
    """Each kernel argument's name is its own: a parameter named like the size, stride or
    offsets argument another tensor parameter brings (`x_size_0` beside `x`) is refused."""
    taken = [arg.name for arg in args]
    clash = next((n for n in names if taken.count(n) > 1), None)
    if clash is None:
        return
    try:
        where = {
            "filename": inspect.getsourcefile(application),
            "line": inspect.getsourcelines(application)[1],
        }
    except (OSError, TypeError):
        where = {}
    raise CompileError(
        f"{application.__qualname__}: parameter {clash!r} has the name of an argument the "
        "compiler passes for another tensor parameter (a tensor x brings x_size_<d>, "
        "x_stride_<d> and, jagged, x_offsets); rename the parameter",
        **where,
    )


def _grid_tensor(arranged, specs) -> Tensor:
    """The tensor whose outermost tiles are the programs, one each: the first tensor parameter,
    as NineToothed takes it."""
    return next(t for t, s in zip(arranged, specs, strict=True) if s.kind == "tensor")


def _outer_tiles(tensor: Tensor, constexprs, sizes: dict[str, Value]) -> str:
    """The number of the tensor's outermost tiles. Program i takes outer tile i of each, so a
    tensor the kernel writes with more tiles than the grid has programs would be left partly
    unwritten: the launch checks it (compiler/runtime/coverage.py)."""
    count = bind(math.prod(tensor.shape, start=1), constexprs)
    return python_expr(count, {symbol: value.name for symbol, value in sizes.items()})


def meta_symbols(arranged: tuple[Tensor, ...]) -> list:
    """The meta symbols of the arranged tensors' levels, in the order they first appear (tensor,
    level, dim): an order that does not depend on what they are called."""
    found = {}
    for tensor in arranged:
        for level in tensor.levels():
            for size in level.shape:
                for symbol in _symbols(size):
                    if symbol.meta:
                        found.setdefault(symbol.name, symbol)
    return list(found.values())


def _symbols(size: object) -> list:
    """The symbols of a size, left to right."""
    if not isinstance(size, Expr):
        return []
    if size.op == "sym":
        return [size]
    return [symbol for arg in size.args for symbol in _symbols(arg)]


def constexpr_symbols(arranged: tuple[Tensor, ...]) -> dict[str, object]:
    """Non-meta constexpr symbols, the keyword arguments a caller must give, in the order they
    first appear (as `meta_symbols`)."""
    found = {}
    for tensor in arranged:
        for level in [*tensor.levels(), tensor.source]:
            for size in level.shape:
                for symbol in _symbols(size):
                    if symbol.constexpr and not symbol.meta:
                        found.setdefault(symbol.name, symbol)
    return found
