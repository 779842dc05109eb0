"""Python expressions of an application -> SSA values (or Python values, when known now)."""

from __future__ import annotations

import ast
import builtins
import operator
from types import ModuleType

from compiler.dsl.language import Primitive
from compiler.dsl.symbol import Expr
from compiler.errors import CompileError
from compiler.frontend import per_element
from compiler.frontend.access import TensorRef
from compiler.frontend.attributes import AttributeLowerer, describe
from compiler.frontend.context import KernelContext
from compiler.frontend.foreign_language import as_language, standard_function
from compiler.frontend.pointers import Pointer, SourceElements, source_elements
from compiler.frontend.primitives import PRIMITIVES, call_primitive, grid, memory
from compiler.frontend.symbols import tile_dim
from compiler.frontend.views_api import BoundMethod, TensorInfo
from compiler.ir.core import Value
from compiler.ir.types import BIT_WIDTHS, is_float, is_integer

_BINARY = {
    ast.Add: "arith.add",
    ast.Sub: "arith.sub",
    ast.Mult: "arith.mul",
    ast.Div: "arith.div",
    ast.FloorDiv: "arith.idiv",
    ast.Mod: "arith.irem",
    ast.BitAnd: "arith.and",
    ast.BitOr: "arith.or",
    ast.BitXor: "arith.xor",
    ast.LShift: "arith.shl",
    ast.RShift: "arith.shr",
}
_COMPARE = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_PYTHON_COMPARE = {
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_PYTHON_CALLABLES = (float, int, bool, len, tuple, list, min, max, abs, isinstance)


class ExpressionLowerer(AttributeLowerer):
    ctx: KernelContext
    env: dict[str, object]
    globals: dict[str, object]

    # -- values ---------------------------------------------------------------------------------

    def operand(self, obj: object) -> object:
        """A value arithmetic can use: tiles are loaded, symbolic sizes computed."""
        if isinstance(obj, TensorRef):
            return self.ctx.accessor.load(obj)
        if isinstance(obj, SourceElements):
            other = obj.pointer.param.arranged.source.other
            return memory.load(self.ctx.arith, obj.pointer, obj.mask, other=other)
        if isinstance(obj, Expr):
            return self.ctx.domain.expr(obj)
        if isinstance(obj, Value | bool | int | float | Pointer):
            return obj  # a pointer takes part in `+` and `-` only (Pointer.moved)
        raise CompileError(f"{describe(obj)} is not a value that arithmetic can use")

    def compile_time(self, obj: object) -> object:
        """A value Python must know now (an argument of float(), math.log2(), ...)."""
        if isinstance(obj, Expr):
            obj = self.operand(obj)
        if isinstance(obj, Value | TensorRef):
            raise CompileError("this call needs a compile-time value, not a tile or runtime scalar")
        return obj

    def lookup(self, name: str) -> object:
        if name in self.env:
            return self.env[name]
        if name in self.globals:
            return as_language(self.globals[name])
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise CompileError(f"name {name!r} is not defined")

    # -- dispatch on the Python syntax node ------------------------------------------------------

    def expr(self, node: ast.expr) -> object:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise CompileError(
                f"{type(node).__name__} expressions are not supported in an application; "
                "use arithmetic, ntl calls, subscripts and conditional expressions"
            )
        return method(node)

    def expr_Constant(self, node: ast.Constant) -> object:
        return node.value

    def expr_Name(self, node: ast.Name) -> object:
        return self.lookup(node.id)

    def expr_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.expr(e) for e in node.elts)

    expr_List = expr_Tuple

    def expr_BinOp(self, node: ast.BinOp) -> object:
        left, right = self.expr(node.left), self.expr(node.right)
        sequences = {ast.Add: operator.add, ast.Mult: operator.mul}
        shapes = isinstance(left, tuple | list) or isinstance(right, tuple | list)
        if shapes and type(node.op) in sequences:  # `x.shape[:1] + (1,)`: Python's
            return sequences[type(node.op)](left, right)
        left, right = self.operand(left), self.operand(right)
        return self.binary(node.op, left, right)

    def binary(self, op: ast.operator, left: object, right: object) -> object:
        if isinstance(left, Pointer) and isinstance(op, ast.Add | ast.Sub):
            return left.moved(self.ctx.arith, right, -1 if isinstance(op, ast.Sub) else 1)
        if isinstance(right, Pointer) and isinstance(op, ast.Add):
            return right.moved(self.ctx.arith, left)
        if isinstance(op, ast.Pow):
            return self.power(left, right)
        if type(op) not in _BINARY:
            raise CompileError(f"operator {type(op).__name__} is not supported")
        return self.ctx.arith.binary(_BINARY[type(op)], left, right)

    def power(self, base: object, exponent: object) -> object:
        arith = self.ctx.arith
        if not isinstance(base, Value) and not isinstance(exponent, Value):
            return base**exponent
        if type(exponent) is int and 1 <= exponent <= 4:  # small powers: repeated products
            result = base
            for _ in range(exponent - 1):
                result = arith.binary("arith.mul", result, base)
            return result
        base_value = arith.as_value(base, exponent if isinstance(exponent, Value) else None)
        if not is_float(base_value.type.dtype):
            base_value = arith.cast(base_value, "f32")
        return arith.b.value("math.pow", *arith.unify(base_value, exponent))

    def expr_UnaryOp(self, node: ast.UnaryOp) -> object:
        value = self.operand(self.expr(node.operand))
        arith = self.ctx.arith
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.USub):
            if not isinstance(value, Value):
                return -value
            # a bool is a 1-bit integer, its own negation (-1 wraps to 1), as Triton's
            return value if value.type.dtype == "i1" else arith.b.value("arith.neg", value)
        if not isinstance(value, Value):
            return (not value) if isinstance(node.op, ast.Not) else ~value
        dtype = value.type.dtype
        if isinstance(node.op, ast.Invert) and is_integer(dtype):  # bitwise: x ^ all ones
            ones = 2 ** BIT_WIDTHS[dtype] - 1 if dtype.startswith("u") else -1
            return arith.binary("arith.xor", value, arith.constant(ones, dtype))
        return arith.b.value("arith.not", arith.cast(value, "i1"))

    def expr_Compare(self, node: ast.Compare) -> object:
        result: object = True
        left = self.comparand(self.expr(node.left))
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.comparand(self.expr(comparator))
            if type(op) in _COMPARE:
                outcome = self.ctx.arith.compare(_COMPARE[type(op)], left, right)
            elif type(op) in (ast.In, ast.NotIn) and _is_value(left, right):
                raise CompileError(f"comparison {type(op).__name__} needs compile-time values")
            else:
                outcome = _PYTHON_COMPARE[type(op)](left, right)
            result = (
                outcome if result is True else self.ctx.arith.binary("arith.and", result, outcome)
            )
            left = right
        return result

    def comparand(self, obj: object) -> object:
        """Data become values; anything else (a dtype, a string, None) compares in Python."""
        return self.operand(obj) if _is_data(obj) else obj

    def expr_BoolOp(self, node: ast.BoolOp) -> object:
        name = "arith.and" if isinstance(node.op, ast.And) else "arith.or"
        result = self.operand(self.expr(node.values[0]))
        for value_node in node.values[1:]:
            if not isinstance(result, Value) and (bool(result) != (name == "arith.and")):
                return result
            value = self.operand(self.expr(value_node))
            result = (
                value
                if not isinstance(result, Value)
                else self.ctx.arith.binary(name, result, value)
            )
        return result

    def expr_IfExp(self, node: ast.IfExp) -> object:
        test = self.operand(self.expr(node.test))
        if not isinstance(test, Value):
            return self.expr(node.body if test else node.orelse)
        body, orelse = self.operand(self.expr(node.body)), self.operand(self.expr(node.orelse))
        return self.ctx.arith.where(test, body, orelse)

    def expr_Subscript(self, node: ast.Subscript) -> object:
        """A subscript read: elements of a source (`x.source[i, j]`) load where they are read,
        before any store the program makes after, as Triton's `tl.load` does."""
        obj = self.subscript(node)
        return self.operand(obj) if isinstance(obj, SourceElements) else obj

    def subscript(self, node: ast.Subscript) -> object:
        """What `node` names: as an assignment's target too (`x.source[i, j] = v` scatters)."""
        obj = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(obj, TensorRef):
            indices = index if isinstance(index, tuple) else (index,)
            if any(i is None or isinstance(i, slice) for i in indices):  # Triton's, on its tile
                return self.tile_subscript(self.operand(obj), indices)
            return TensorRef(obj.param, obj.indices + tuple(self.operand(i) for i in indices))
        if isinstance(obj, Value):
            return self.tile_subscript(obj, index if isinstance(index, tuple) else (index,))
        if isinstance(obj, TensorInfo) and obj.pointer is not None:  # x.source[i, j]
            indices = index if isinstance(index, tuple) else (index,)
            indices = tuple(
                i if i is None or isinstance(i, slice) else self.operand(i) for i in indices
            )
            sizes = [self.operand(size) for size in obj.shape]
            return source_elements(self.ctx.arith, obj.pointer.param, sizes, indices)
        index = self.operand(index) if isinstance(index, Expr) else index
        if isinstance(index, Value):
            raise CompileError("a Python sequence can only be indexed by a compile-time integer")
        return obj[index]

    def tile_subscript(self, value: Value, index: tuple) -> Value:
        """`x[:, None]`: full slices keep a dim, None inserts one (NumPy broadcasting)."""
        axis = 0
        for item in index:
            if item is None:
                value = self.ctx.builder.value("tile.expand_dims", value, axis=axis)
            elif item != slice(None):
                raise CompileError("tiles can only be indexed with ':' and None, e.g. x[:, None]")
            axis += 1
        return value

    def expr_Slice(self, node: ast.Slice) -> slice:
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else self.expr(p) for p in parts))

    def expr_Call(self, node: ast.Call) -> object:
        func = self.expr(node.func)
        args = []
        for a in node.args:
            args.extend(
                self.unpacked(a.value, tuple) if isinstance(a, ast.Starred) else [self.expr(a)]
            )
        kwargs = {}
        for k in node.keywords:
            kwargs.update(
                self.unpacked(k.value, dict) if k.arg is None else {k.arg: self.expr(k.value)}
            )
        if isinstance(func, Primitive) and func.name in grid.PRIMITIVES:
            values = [self.compile_time(a) for a in args]
            named = {k: self.compile_time(v) for k, v in kwargs.items()}
            return grid.call_grid_primitive(self.ctx.grid, func.name, values, named)
        if isinstance(func, Primitive) and func.name not in PRIMITIVES:
            written_in_triton = standard_function(func.name)
            if written_in_triton is not None:
                # Triton's own source, on values: its parameters are its own, never a tensor of
                # the application's that an assignment to them would store into
                values = [self.operand(a) if _is_data(a) else a for a in args]
                named = {k: self.operand(v) if _is_data(v) else v for k, v in kwargs.items()}
                return self.inline_call(written_in_triton, _without_arguments(node), values, named)
        if isinstance(func, Primitive):
            lowered = [self.combiner(self.primitive_arg(a), node) for a in args]
            lowered_kwargs = {
                k: self.operand(v) if _is_data(v) else self.combiner(v, node)
                for k, v in kwargs.items()
            }
            return call_primitive(
                self.ctx.arith, func.name, lowered, lowered_kwargs, ast.unparse(node.func)
            )
        if isinstance(func, BoundMethod):
            return func.call(*[self.operand(a) if _is_data(a) else a for a in args], **kwargs)
        if func in (builtins.min, builtins.max) and any(_is_data(a) for a in args):
            name = "arith.min" if func is builtins.min else "arith.max"
            result = self.operand(args[0])
            for a in args[1:]:
                result = self.ctx.arith.binary(name, result, self.operand(a))
            return result
        if func is builtins.print:  # Triton's `print` in a kernel is its device_print
            return call_primitive(self.ctx.arith, "device_print", args, kwargs)
        if func is builtins.abs and _is_data(args[0]):
            return call_primitive(self.ctx.arith, "abs", [self.operand(args[0])], {})
        if func in _PYTHON_CALLABLES or getattr(func, "__module__", None) == "math":
            return func(*[self.compile_time(a) for a in args], **kwargs)
        if _compile_time_method(func) and not any(map(_is_data, [*args, *kwargs.values()])):
            return func(*args, **kwargs)  # `x.dtype.is_floating()`, `name.startswith(...)`
        function = _python_function(func)
        if function is not None:
            return self.inline_call(function, node, args, kwargs)
        raise CompileError(
            f"cannot call {describe(func)} inside an application; call a Python function (it "
            "is inlined) or a ninetoothed.language or triton.language function, or compute the "
            "value before the launch"
        )

    def unpacked(self, node: ast.expr, kind: type) -> object:
        """What `*x` (a tuple or list) or `**x` (a dict of keywords) spreads into a call: a value
        known when the program compiles."""
        value = self.expr(node)
        if kind is tuple and isinstance(value, tuple | list):
            return value
        if kind is dict and isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return value
        what = "a value of the program" if _is_data(value) else f"a {type(value).__name__}"
        form = "*" if kind is tuple else "**"
        wanted = "a tuple or list" if kind is tuple else "a dict of keyword names"
        raise CompileError(
            f"{form}{ast.unparse(node)} is {what}; a call can spread only {wanted} "
            "known at compile time"
        )

    def primitive_arg(self, arg: object) -> object:
        """Tiles and sizes become values; a shape tuple becomes tile dims (powers of two); a block
        size stays a tile dim (`ntl.arange(0, x.shape[0])`), as it is a constexpr in Triton."""
        if isinstance(arg, tuple) and any(isinstance(item, TensorRef | Value) for item in arg):
            return tuple(self.operand(item) if _is_data(item) else item for item in arg)  # tiles
        if isinstance(arg, tuple) and not all(isinstance(size, int) for size in arg):
            return tuple(tile_dim(size, self.ctx.constexprs) for size in arg)
        if isinstance(arg, Expr) and arg.op == "sym" and arg.meta:
            return arg.name
        return self.operand(arg) if _is_data(arg) else arg

    def combiner(self, arg: object, node: ast.Call) -> object:
        """A function given to a primitive (`ntl.reduce`'s combine_fn) as a callable the
        primitive calls with values, each call inlined as a call from `node` would be."""
        function = _python_function(arg)
        if function is None:
            return arg
        return InlinedFunction(self, function, _without_arguments(node))

    def inline_call(self, func, node: ast.Call, args: list, kwargs: dict) -> object:
        raise NotImplementedError  # provided by FunctionLowerer


class InlinedFunction:
    """A Python function given to a primitive: each call inlines it on values, as a call at the
    primitive's line would; `per_element` inlines it as mapped over elements."""

    def __init__(self, lowerer: ExpressionLowerer, function, node: ast.Call):
        self.lowerer, self.function, self.node = lowerer, function, node

    def __call__(self, *values: object) -> object:
        return self.lowerer.inline_call(self.function, self.node, list(values), {})

    def per_element(self, *values: object) -> object:
        with per_element.mapped(self.lowerer.ctx):
            return self(*values)


def _without_arguments(node: ast.Call) -> ast.Call:
    """`node` with no argument expressions: a function inlined for it then updates no variable of
    the caller's by assigning to a parameter (see `FunctionLowerer.inline_call`)."""
    return ast.copy_location(ast.Call(func=node.func, args=[], keywords=[]), node)


def _python_function(obj: object):
    """The Python function to inline for `obj`: a function, or a @triton.jit helper's; else
    None."""
    for candidate in (obj, getattr(obj, "fn", None)):
        if callable(candidate) and hasattr(candidate, "__code__"):
            return candidate
    return None


def _compile_time_method(func: object) -> bool:
    """A method of a compile-time object (a dtype, a str): Python runs it now."""
    owner = getattr(func, "__self__", None)
    return owner is not None and not isinstance(owner, type | ModuleType) and not _is_data(owner)


def _is_value(*objs: object) -> bool:
    return any(isinstance(obj, Value) for obj in objs)


def _is_data(obj: object) -> bool:
    return isinstance(obj, TensorRef | Value | Expr)
