"""Statements of an application (and of the helpers it calls, inlined) -> SSA.

Assigning to a parameter stores; `for ... in range(...)` becomes `scf.for` and `while` on a
runtime scalar `scf.while`, whose loop-carried values are the variables the body reassigns; `if`
on a compile-time value picks a branch, on a runtime scalar becomes `scf.if`; calling a Python
function inlines it.
"""

from __future__ import annotations

import ast
import builtins
import inspect
from collections.abc import Callable

from compiler.dsl.language import Primitive
from compiler.errors import CompileError
from compiler.frontend import per_element, range_loops
from compiler.frontend.access import TensorRef
from compiler.frontend.context import KernelContext
from compiler.frontend.dtypes import promote
from compiler.frontend.expressions import ExpressionLowerer
from compiler.frontend.pointers import SourceElements
from compiler.frontend.primitives import compile_time, memory
from compiler.frontend.source_text import assigned_names, read_definition
from compiler.ir.builder import broadcast_shape
from compiler.ir.core import Block, Region, Value
from compiler.ir.types import ScalarType, value_type


class FunctionLowerer(ExpressionLowerer):
    def __init__(self, ctx: KernelContext, func, env: dict[str, object]):
        self.ctx = ctx
        self.func = func
        self.env = env
        self.globals = dict(func.__globals__)
        if func.__closure__:
            names = func.__code__.co_freevars
            self.globals.update(
                {n: c.cell_contents for n, c in zip(names, func.__closure__, strict=True)}
            )
        definition = ctx.definitions.get(func)
        if definition is None:
            definition = ctx.definitions[func] = read_definition(func)
        self.filename, self.first_line, self.definition = definition
        self.returned: object = None
        self.has_returned = False  # a `return` ran: the statements after it do not
        # Per element (`per_element.py`): the elements the statements run for, those returned.
        self.predicate: Value | None = None
        self.done: Value | None = None
        self.device_depth = 0  # inside a loop or a runtime `if`, which cannot return

    @property
    def parameters(self) -> list[str]:
        return [a.arg for a in self.definition.args.args]

    def run(self) -> object:
        self.statements(self.definition.body)
        return self.returned

    def fail(self, node: ast.AST, message: str) -> None:
        line = self.first_line + getattr(node, "lineno", 1) - 1
        raise CompileError(message, filename=self.filename, line=line)

    def statement(self, node: ast.stmt) -> None:
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        try:
            if method is None:
                raise CompileError(
                    f"{type(node).__name__} statements are not supported in an application; use "
                    "assignments, for ... in range(...), while, if, and calls"
                )
            method(node)
        except CompileError as error:
            if error.line is not None:
                raise
            self.fail(node, error.message)
        except (ValueError, TypeError, KeyError, IndexError) as error:
            self.fail(node, f"{error}")

    def statements(self, nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if self.has_returned:
                return
            self.statement(node)

    def runtime_body(self, nodes: list[ast.stmt]) -> None:
        """The body of a loop or a runtime `if`: it runs on the device, so it cannot return."""
        self.device_depth += 1
        try:
            self.statements(nodes)
        finally:
            self.device_depth -= 1

    # -- simple statements -----------------------------------------------------------------------

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if not isinstance(node.value, ast.Constant):  # a docstring does nothing
            self.expr(node.value)

    def stmt_Assert(self, node: ast.Assert) -> None:
        """`assert cond, msg` is Triton's `device_assert(cond, msg)`."""
        message = "" if node.msg is None else self.expr(node.msg)
        compile_time.device_assert(self.ctx.arith, self.expr(node.test), message)

    def stmt_Return(self, node: ast.Return) -> None:
        if self.device_depth:
            raise CompileError(
                "`return` inside a loop or an `if` on a runtime value is not supported; assign "
                "the result to a variable and return it after the loop or `if`"
            )
        value = None if node.value is None else self.expr(node.value)
        if self.predicate is None and self.done is None:
            self.returned, self.has_returned = value, True
        else:
            per_element.returns(self, value)

    def stmt_Assign(self, node: ast.Assign) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        left, right = self.operand(self.expr(node.target)), self.operand(self.expr(node.value))
        self.assign(node.target, self.binary(node.op, left, right))

    def assign(self, target: ast.expr, value: object) -> None:
        if isinstance(target, ast.Name):
            current = self.env.get(target.id)
            if isinstance(current, TensorRef):
                self.ctx.accessor.store(current, self.operand(value))
            elif isinstance(value, TensorRef):  # `y = x` loads, as NineToothed does
                self.env[target.id] = self.operand(value)
            else:
                self.env[target.id] = value
        elif isinstance(target, ast.Subscript):
            ref = self.subscript(target)
            if isinstance(ref, SourceElements):  # x.source[i, j] = value scatters
                memory.store(self.ctx.arith, ref.pointer, self.operand(value), ref.mask)
                return
            if not isinstance(ref, TensorRef):
                raise CompileError("only parameters can be assigned through a subscript")
            self.ctx.accessor.store(ref, self.operand(value))
        elif isinstance(target, ast.Tuple | ast.List):
            if not isinstance(value, tuple) or len(value) != len(target.elts):
                raise CompileError("the right side does not unpack into the targets")
            for element, item in zip(target.elts, value, strict=True):
                self.assign(element, item)
        else:
            raise CompileError(f"cannot assign to {type(target).__name__}")

    # -- control flow ----------------------------------------------------------------------------

    def stmt_For(self, node: ast.For) -> None:
        call = node.iter
        if not (
            isinstance(call, ast.Call)
            and self.is_range(self.expr(call.func))
            and isinstance(node.target, ast.Name)
        ):
            raise CompileError(
                "loops must be `for i in range(...)` (or Triton's ntl.range / ntl.static_range)"
            )
        if node.orelse:
            raise CompileError("for ... else is not supported")
        bounds = [self.operand(self.expr(a)) for a in call.args]
        bounds = [self.index(v) if isinstance(v, Value) else v for v in bounds]
        *bounds, induction = range_loops.loop_bounds(self.ctx.arith, bounds)
        lower, upper, step = (self.index(v) for v in bounds)
        carried = [n for n in assigned_names(node.body) if self.carries(n)]
        inits = self.initial(carried)
        block, inits = self.loop_body(node.body, carried, inits, node.target.id, induction)
        op = self.ctx.builder.create(
            "scf.for", [lower, upper, step, *inits], regions=[Region([block])]
        )
        self.env.update(zip(carried, op.results, strict=True))

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            raise CompileError("while ... else is not supported")
        carried = [n for n in assigned_names(node.body) if self.carries(n)]
        inits = self.initial(carried)
        condition = self.condition(node.test, carried, inits)
        if not isinstance(condition, Block):
            if condition:
                raise CompileError(
                    "this `while` never ends: its condition is true when the program compiles "
                    "and `break` is not supported; make the condition a runtime value the body "
                    "changes"
                )
            return  # false when the program compiles: the body never runs
        statements = per_element.loop(node) if self.ctx.per_element else node.body
        body, final = self.loop_body(statements, carried, inits)
        if [v.type for v in final] != [v.type for v in inits]:  # the body changed a type
            condition = self.condition(node.test, carried, final)
        op = self.ctx.builder.create(
            "scf.while", final, regions=[Region([condition]), Region([body])]
        )
        self.env.update(zip(carried, op.results, strict=True))

    def condition(self, test: ast.expr, carried: list[str], inits: list[Value]) -> Block | bool:
        """A `while`'s test as a region over the carried values; a compile-time test's truth."""
        block = Block([Value(v.type) for v in inits])
        saved = dict(self.env)
        self.env.update(zip(carried, block.args, strict=True))
        with self.ctx.builder.at_end_of(block):
            value = self.operand(self.expr(test))
            if isinstance(value, Value) and value.type.shape and self.ctx.per_element:
                value = per_element.any_element(self.ctx.arith, value)
            if isinstance(value, Value):
                if value.type.shape:
                    raise CompileError(
                        "`while` needs a scalar condition; reduce a tile to one first (ntl.max, "
                        "ntl.sum)"
                    )
                self.ctx.builder.create("scf.yield", [self.ctx.arith.cast(value, "i1")])
        self.env = saved
        return block if isinstance(value, Value) else bool(value)

    def initial(self, carried: list[str]) -> list[Value]:
        """The values the `carried` variables enter a loop with."""
        return [self.ctx.arith.as_value(self.operand(self.env[n])) for n in carried]

    def loop_body(
        self,
        statements: list[ast.stmt],
        carried: list[str],
        inits: list[Value],
        counter: str | None = None,
        induction: Callable[[Value], object] | None = None,
    ) -> tuple[Block, list[Value]]:
        """A loop's body over the `carried` variables (and the index `counter`, for a `for`:
        the loop's own, or `induction` of it), ended by its yield, with their initial values:
        cast to the types the body gives them."""
        for _ in range(3):  # retry when the body changes a carried value's type
            block, yields = self.lower_body(statements, carried, inits, counter, induction)
            if [v.type for v in yields] == [v.type for v in inits]:
                break
            inits = [self.meet(i, y.type) for i, y in zip(inits, yields, strict=True)]
        else:
            raise CompileError(f"loop-carried values {carried} keep changing type; cast them")
        with self.ctx.builder.at_end_of(block):
            self.ctx.builder.create("scf.yield", yields)
        return block, inits

    @staticmethod
    def is_range(func: object) -> bool:
        """Python's `range`, or Triton's `range` and `static_range`: the same iterations (their
        keywords are hints to Triton's compiler: pipelining, unrolling)."""
        return func is builtins.range or (
            isinstance(func, Primitive) and func.name in ("range", "static_range")
        )

    def carries(self, name: str) -> bool:
        return name in self.env and not isinstance(self.env[name], TensorRef)

    def index(self, value: object) -> Value:
        arith = self.ctx.arith
        if isinstance(value, Value):
            return arith.cast(value, "index")
        return arith.constant(value, "index")

    def lower_body(
        self,
        statements: list[ast.stmt],
        carried: list[str],
        inits: list,
        counter: str | None,
        induction: Callable[[Value], object] | None,
    ):
        leading = [Value(ScalarType("index"))] if counter else []
        block = Block(leading + [Value(v.type) for v in inits])
        saved = dict(self.env)
        self.env.update(zip(carried, block.args[len(leading) :], strict=True))
        with self.ctx.builder.at_end_of(block):
            if counter:
                self.env[counter] = induction(block.args[0]) if induction else block.args[0]
            self.runtime_body(statements)
            yields = [self.ctx.arith.as_value(self.operand(self.env[n])) for n in carried]
            args = block.args[len(leading) :]
            yields = [self.conform(y, a.type) for y, a in zip(yields, args, strict=True)]
        self.env = saved
        return block, yields

    def meet(self, value: Value, other_type) -> Value:
        """`value` converted to the type it meets `other_type` at (dtype promotion, broadcast)."""
        dtype = promote(value.type.dtype, other_type.dtype)
        shape = broadcast_shape(value.type, other_type)
        return self.ctx.builder.broadcast_to(self.ctx.arith.cast(value, dtype), shape)

    def conform(self, value: Value, type_) -> Value:
        """Cast/broadcast a yielded value to the region's type when that loses nothing."""
        if value.type == type_:
            return value
        if promote(value.type.dtype, type_.dtype) != type_.dtype:
            return value
        try:
            shape = broadcast_shape(value.type, type_)
        except ValueError:
            return value
        if shape != tuple(type_.shape):
            return value
        return self.ctx.builder.broadcast_to(self.ctx.arith.cast(value, type_.dtype), shape)

    def stmt_If(self, node: ast.If) -> None:
        test = self.operand(self.expr(node.test))
        if not isinstance(test, Value):
            self.statements(node.body if test else node.orelse)
            return
        if self.ctx.per_element:
            per_element.branch(self, node, test)
            return
        if test.type.shape:
            raise CompileError("`if` needs a scalar condition; for tiles use ntl.where(cond, a, b)")
        lowered = []
        for statements in (node.body, node.orelse):
            block, saved = Block(), dict(self.env)
            with self.ctx.builder.at_end_of(block):
                self.runtime_body(statements)
            lowered.append((block, self.env))
            self.env = saved
        # What the `if` gives: the variables it reassigns and those both branches define.
        names = [
            n
            for n in assigned_names(node.body + node.orelse)
            if self.carries(n) or all(isinstance(env.get(n), _NUMBERS) for _, env in lowered)
        ]
        branches = []
        for block, env in lowered:
            with self.ctx.builder.at_end_of(block):
                values = [self.ctx.arith.as_value(self.operand(env[n])) for n in names]
            branches.append((block, values))
        types = []
        for position in range(len(names)):
            a, b = (values[position].type for _, values in branches)
            dtype, shape = promote(a.dtype, b.dtype), broadcast_shape(a, b)
            types.append(value_type(dtype, shape))
        regions = []
        for block, values in branches:
            with self.ctx.builder.at_end_of(block):
                converted = [self.meet(v, t) for v, t in zip(values, types, strict=True)]
                self.ctx.builder.create("scf.yield", converted)
            regions.append(Region([block]))
        op = self.ctx.builder.create(
            "scf.if", [self.ctx.arith.cast(test, "i1")], result_types=types, regions=regions
        )
        self.env.update(zip(names, op.results, strict=True))

    # -- calls -------------------------------------------------------------------------------------

    def inline_call(self, func, node: ast.Call, args: list, kwargs: dict) -> object:
        callee = FunctionLowerer(self.ctx, func, {})
        signature = inspect.signature(func)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise CompileError(f"call to {func.__qualname__}: {error}") from None
        bound.apply_defaults()
        callee.env.update(bound.arguments)
        try:
            result = callee.run()
        except CompileError as error:  # located in the callee: say which call inlined it
            raise error.called_from(self.filename, self.first_line + node.lineno - 1) from None
        # A helper that assigns to a parameter bound to a caller's local variable updates it, as
        # NineToothed's inliner does (e.g. an application computing into `output`).
        for parameter, arg_node in zip(callee.parameters, node.args, strict=False):
            if isinstance(arg_node, ast.Name) and self.carries(arg_node.id):
                self.env[arg_node.id] = callee.env[parameter]
        return result


_NUMBERS = (Value, bool, int, float)  # what a variable first defined in both branches may hold
