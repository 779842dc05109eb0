"""The SSA arithmetic domain for `compiler.dsl.views.resolve`: the same index maps that the oracle
runs on NumPy arrays emit `arith` ops here. Python ints fold on the spot; the rest is left to
`ssa.canonicalize`."""

from __future__ import annotations

from collections.abc import Mapping

from compiler.dsl.symbol import Expr
from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.symbols import bind
from compiler.ir.core import Block, Operation, Value
from compiler.ir.types import ScalarType

Index = Value | int | bool
_INDEX = [ScalarType("index")]


class IndexDomain:
    def __init__(
        self,
        arith: Arith,
        entry: Block,
        sizes: Mapping[str, Value],
        constexprs: Mapping[str, int],
    ):
        self.arith = arith
        self.entry = entry  # values shared by every access are defined here, before any loop
        self.sizes = sizes  # size-symbol name -> the kernel's index argument
        self.constexprs = constexprs
        self.metas: dict[str, Value] = {}
        self.program_id = self._at_entry(Operation("index.program_id", [], _INDEX, {"axis": 0}))
        # Values known >= 0: program ids, sizes, block sizes, ranges over a tile, and the sums,
        # products, quotients and remainders of such. `x >= 0` on one is true without an op:
        # most bounds checks of an access are, and emitting them only for `ssa.canonicalize` to
        # prove them away costs every walk in between.
        self.nonnegative: set[Value] = {self.program_id, *sizes.values()}
        # Ranges over a tile dim: value -> the dim, an int or a meta symbol's name; `x < dim` is
        # true without an op (an access's innermost bounds checks).
        self.below: dict[Value, int | str] = {}

    def _at_entry(self, op: Operation) -> Value:
        self.entry.insert(len(self.metas), op)
        return op.result

    def const(self, value: int) -> int:
        return value

    def expr(self, expr: object) -> Index:
        expr = bind(expr, self.constexprs)
        if not isinstance(expr, Expr):
            return expr
        if expr.op == "sym":
            return self.symbol(expr)
        if expr.op == "neg":
            return self.sub(0, self.expr(expr.args[0]))
        left, right = (self.expr(a) for a in expr.args)
        return getattr(self, expr.op)(left, right)  # add, sub, mul, floordiv, mod

    def expr_where(self, expr: object, values: Mapping[str, Value]) -> Index:
        """`expr` with the size symbols named in `values` standing for those values."""
        saved = self.sizes
        self.sizes = {**saved, **values}
        try:
            return self.expr(expr)
        finally:
            self.sizes = saved

    def symbol(self, symbol: Expr) -> Value:
        if symbol.name in self.sizes:
            return self.sizes[symbol.name]
        if symbol.meta:
            if symbol.name not in self.metas:
                op = Operation("index.meta", [], _INDEX, {"name": symbol.name})
                self.metas[symbol.name] = self._at_entry(op)
                self.nonnegative.add(self.metas[symbol.name])
            return self.metas[symbol.name]
        raise CompileError(
            f"symbol {symbol.name} has no value: pass it as a keyword argument when calling the "
            "kernel (constexpr symbols are call-time arguments)"
        )

    def _index(self, x: Index) -> Index:
        return self.arith.cast(x, "index") if isinstance(x, Value) and x.type.dtype != "i1" else x

    # Identities with Python ints are applied here so the common case emits no op at all.

    def is_nonnegative(self, x: Index) -> bool:
        return x >= 0 if type(x) is int else x in self.nonnegative

    def _closed(self, op_name: str, a: Index, b: Index) -> Index:
        """`a op b` for an op that keeps two non-negative operands non-negative."""
        result = self.arith.binary(op_name, self._index(a), self._index(b))
        if self.is_nonnegative(a) and self.is_nonnegative(b):
            self.nonnegative.add(result)
        return result

    def add(self, a: Index, b: Index) -> Index:
        if _is(a, 0) or _is(b, 0):
            return b if _is(a, 0) else a
        return self._closed("arith.add", a, b)

    def sub(self, a: Index, b: Index) -> Index:
        if _is(b, 0):
            return a
        return self.arith.binary("arith.sub", self._index(a), self._index(b))

    def mul(self, a: Index, b: Index) -> Index:
        if _is(a, 0) or _is(b, 0):
            return 0
        if _is(a, 1) or _is(b, 1):
            return b if _is(a, 1) else a
        return self._closed("arith.mul", a, b)

    def floordiv(self, a: Index, b: Index) -> Index:
        if _is(b, 1):
            return a
        return self._closed("arith.idiv", a, b)

    def mod(self, a: Index, b: Index) -> Index:
        if _is(b, 1):
            return 0
        return self._closed("arith.irem", a, b)

    def tile_range(self, index: Value, size: int | str) -> None:
        """`index` takes the values 0 .. size - 1 (a tile dim of `size`)."""
        self.nonnegative.add(index)
        self.below[index] = size

    def lt(self, a: Index, b: Index) -> Index:
        dim = self.below.get(a) if isinstance(a, Value) else None
        if type(dim) is int and type(b) is int and dim <= b:
            return True
        if type(dim) is str and isinstance(b, Value) and self.metas.get(dim) is b:
            return True
        return self.arith.compare("lt", self._index(a), self._index(b))

    def ge(self, a: Index, b: Index) -> Index:
        if _is(b, 0) and self.is_nonnegative(a):
            return True
        return self.arith.compare("ge", self._index(a), self._index(b))

    def and_(self, a: Index, b: Index) -> Index:
        if a is True:
            return b
        if b is True:
            return a
        return self.arith.binary("arith.and", a, b)


def _is(x: Index, number: int) -> bool:
    return type(x) is int and x == number
