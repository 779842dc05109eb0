"""Symbolic integer expressions: sizes, strides and meta-parameters of arrangements.

An `Expr` is immutable and hashable. `expr.op` is one of `const`, `sym`, `add`, `sub`, `mul`,
`floordiv`, `mod`, `neg`, and `expr.args` holds its operands. `Const` and `Symbol` are the leaves.
Python ints mix freely with expressions; constants fold and the trivial identities (`x + 0`,
`x * 1`, `x * 0`, `x // 1`, `x % 1`, `--x`, `x - x`) vanish at construction: sums are kept as
canonical linear combinations. `==` is structural (a
`Const` also equals the int it holds) and never builds an expression. Division and modulo follow
Python's floor semantics.
"""

from __future__ import annotations

import contextlib
import itertools
import numbers
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

_FOLD: dict[str, Callable[..., int]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "neg": operator.neg,
}

_SPELLING = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}

_PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "floordiv": 2, "mod": 2, "neg": 3}

_ATOM = 4


@dataclass(frozen=True, eq=False, repr=False)
class Expr:
    """A symbolic integer expression: an operation `op` applied to the Exprs in `args`."""

    op: str
    args: tuple[Expr, ...] = ()

    def _key(self) -> tuple:
        return (self.op, self.args)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Expr):
            return self._key() == other._key()
        if type(other) is int or isinstance(other, numbers.Integral):
            return isinstance(self, Const) and self.value == other
        return NotImplemented

    def __hash__(self) -> int:
        # An expression is immutable, so its hash and its spelling are computed once: sorting a
        # sum's terms by their spelling and keying dicts by them would redo whole subtrees.
        memo = self.__dict__
        if "_hash" not in memo:
            memo["_hash"] = hash(self._key())
        return memo["_hash"]

    def __getstate__(self) -> dict:
        # A string's hash differs between processes: a copy sent to another one hashes anew.
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def __add__(self, other: Expr | int) -> Expr:
        return _binary("add", self, other)

    def __radd__(self, other: int) -> Expr:
        return _binary("add", other, self)

    def __sub__(self, other: Expr | int) -> Expr:
        return _binary("sub", self, other)

    def __rsub__(self, other: int) -> Expr:
        return _binary("sub", other, self)

    def __mul__(self, other: Expr | int) -> Expr:
        return _binary("mul", self, other)

    def __rmul__(self, other: int) -> Expr:
        return _binary("mul", other, self)

    def __floordiv__(self, other: Expr | int) -> Expr:
        return _binary("floordiv", self, other)

    def __rfloordiv__(self, other: int) -> Expr:
        return _binary("floordiv", other, self)

    def __mod__(self, other: Expr | int) -> Expr:
        return _binary("mod", self, other)

    def __rmod__(self, other: int) -> Expr:
        return _binary("mod", other, self)

    def __neg__(self) -> Expr:
        return _apply("neg", (self,))

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The value of the expression, with each symbol's value taken from `env` by name."""
        return _FOLD[self.op](*(arg.evaluate(env) for arg in self.args))

    def substitute(self, env: Mapping[str, Expr | int]) -> Expr:
        """The expression with each symbol named in `env` replaced by its value there."""
        return _apply(self.op, tuple(arg.substitute(env) for arg in self.args))

    def free_symbols(self) -> frozenset[Symbol]:
        return frozenset().union(*(arg.free_symbols() for arg in self.args))

    def _precedence(self) -> int:
        return _PRECEDENCE[self.op]

    def __str__(self) -> str:
        memo = self.__dict__
        if "_text" not in memo:
            memo["_text"] = self._spell()
        return memo["_text"]

    def _spell(self) -> str:
        if self.op == "neg":
            return f"-{_parenthesize(self.args[0], self._precedence() - 1)}"
        left, right = self.args
        precedence = self._precedence()
        associative = self.op in ("add", "mul") and right.op == self.op
        right_floor = precedence - 1 if associative else precedence
        return (
            f"{_parenthesize(left, precedence - 1)} {_SPELLING[self.op]} "
            f"{_parenthesize(right, right_floor)}"
        )

    __repr__ = __str__


@dataclass(frozen=True, eq=False, repr=False)
class Const(Expr):
    """An integer constant."""

    op: str = field(default="const", init=False)
    args: tuple[Expr, ...] = field(default=(), init=False)
    value: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", int(self.value))

    def _key(self) -> tuple:
        return ("const", self.value)

    def __hash__(self) -> int:
        return hash(self.value)

    def evaluate(self, env: Mapping[str, int]) -> int:
        return self.value

    def substitute(self, env: Mapping[str, Expr | int]) -> Expr:
        return self

    def free_symbols(self) -> frozenset[Symbol]:
        return frozenset()

    def _precedence(self) -> int:
        return _ATOM

    def __str__(self) -> str:
        return str(self.value)

    __repr__ = __str__


@dataclass(frozen=True, eq=False, repr=False)
class Symbol(Expr):
    """A named integer unknown. Symbols compare and hash by name.

    `meta` marks a meta-parameter (a block size the schedule chooses); it implies `constexpr`.
    The bounds and `power_of_two` default as in NineToothed: meta symbols to 32..1024 and powers
    of two, other constexpr symbols to 1..2**20, plain symbols to None.
    """

    op: str = field(default="sym", init=False)
    args: tuple[Expr, ...] = field(default=(), init=False)
    name: str
    constexpr: bool | None = None
    meta: bool | None = None
    lower_bound: int | None = None
    upper_bound: int | None = None
    power_of_two: bool | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(
                f"Symbol name {self.name!r} is not an identifier; name a single unknown, e.g. "
                "Symbol('m'), and build expressions with operators, e.g. Symbol('m') + 1"
            )
        if self.meta and self.constexpr is False:
            raise ValueError(
                f"Symbol {self.name!r}: a meta symbol is always constexpr; drop constexpr=False"
            )
        if self.meta:
            defaults = (32, 1024, True)
        elif self.constexpr:
            defaults = (1, 2**20, False)
        else:
            defaults = (None, None, None)
        given = (self.lower_bound, self.upper_bound, self.power_of_two)
        names = ("lower_bound", "upper_bound", "power_of_two")
        for name, value, default in zip(names, given, defaults, strict=True):
            object.__setattr__(self, name, default if value is None else value)
        object.__setattr__(self, "meta", bool(self.meta))
        object.__setattr__(self, "constexpr", bool(self.constexpr or self.meta))

    def _key(self) -> tuple:
        return ("sym", self.name)

    def evaluate(self, env: Mapping[str, int]) -> int:
        if self.name not in env:
            raise ValueError(
                f"no value for symbol {self.name!r}; give it one, e.g. {{{self.name!r}: 64}}"
            )
        return int(env[self.name])

    def substitute(self, env: Mapping[str, Expr | int]) -> Expr:
        return as_expr(env[self.name]) if self.name in env else self

    def free_symbols(self) -> frozenset[Symbol]:
        return frozenset((self,))

    def _precedence(self) -> int:
        return _ATOM

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


def as_expr(value: Expr | int) -> Expr:
    """`value` as an Expr: ints become `Const`s, Exprs stay as they are."""
    if isinstance(value, Expr):
        return value
    if type(value) is int or isinstance(value, numbers.Integral):  # `is int`: no ABC check
        return Const(int(value))
    raise TypeError(
        f"expected an int or a symbolic expression, got {type(value).__name__} {value!r}"
    )


def _binary(op: str, left: Expr | int, right: Expr | int) -> Expr:
    if not (_is_integer(left) and _is_integer(right)):
        return NotImplemented
    return _apply(op, (as_expr(left), as_expr(right)))


def _is_integer(value: object) -> bool:
    """An Expr or an integer; `type(...) is int` first spares most values the ABC's check."""
    return type(value) is int or isinstance(value, Expr | numbers.Integral)


def _apply(op: str, args: tuple[Expr, ...]) -> Expr:
    """Build `op(*args)`, folding constants and the trivial identities.

    Sums, differences, negations and products with a constant are kept as a canonical linear
    combination, so `x - (x - 1)` is `1` and `1 + x` is `x + 1`.
    """
    if all(isinstance(arg, Const) for arg in args):
        return Const(_FOLD[op](*(arg.value for arg in args)))
    if op == "mul" and any(arg == 0 for arg in args):
        return Const(0)
    if op in ("add", "sub", "neg") or (op == "mul" and any(isinstance(a, Const) for a in args)):
        return _from_linear(_linear(Expr(op, args)))
    left, right = args
    if op == "floordiv" and right == 1:
        return left
    if op == "mod" and right == 1:
        return Const(0)
    return Expr(op, args)


_ONE = Const(1)  # the constant term's key in a linear combination


def _linear(expr: Expr) -> dict[Expr, int]:
    """`expr` as coefficients of its non-linear terms; the constant term is keyed by `_ONE`."""
    if isinstance(expr, Const):
        return {_ONE: expr.value}
    if expr.op == "neg":
        return _scale(_linear(expr.args[0]), -1)
    if expr.op in ("add", "sub"):
        left, right = (_linear(arg) for arg in expr.args)
        for term, coefficient in right.items():
            signed = coefficient if expr.op == "add" else -coefficient
            left[term] = left.get(term, 0) + signed
        return left
    if expr.op == "mul":
        left, right = expr.args
        if isinstance(left, Const):
            return _scale(_linear(right), left.value)
        if isinstance(right, Const):
            return _scale(_linear(left), right.value)
    return {expr: 1}


def _scale(terms: dict[Expr, int], factor: int) -> dict[Expr, int]:
    return {term: coefficient * factor for term, coefficient in terms.items()}


def _from_linear(terms: dict[Expr, int]) -> Expr:
    """The canonical expression of a linear combination: added terms, then subtracted terms
    (each group in the order of their spelling), then the constant."""
    constant = terms.pop(_ONE, 0)
    ordered = sorted(
        (item for item in terms.items() if item[1]), key=lambda item: (item[1] < 0, str(item[0]))
    )
    result: Expr | None = None
    for term, coefficient in ordered:
        scaled = term if abs(coefficient) == 1 else Expr("mul", (Const(abs(coefficient)), term))
        if result is None:
            result = scaled if coefficient > 0 else Expr("neg", (scaled,))
        else:
            result = Expr("add" if coefficient > 0 else "sub", (result, scaled))
    if result is None:
        return Const(constant)
    if constant:
        result = Expr("add" if constant > 0 else "sub", (result, Const(abs(constant))))
    return result


def _parenthesize(expr: Expr, floor: int) -> str:
    """`expr` spelled, in parentheses unless it binds tighter than `floor`."""
    text = str(expr)
    return text if expr._precedence() > floor else f"({text})"


_block_sizes = itertools.count()


@contextlib.contextmanager
def block_sizes_numbered_from(start: int):
    """Number the `block_size()` symbols made inside from `start`: a program loaded twice (as the
    behavioural audits do) then gets the same generated names both times."""
    global _block_sizes
    saved, _block_sizes = _block_sizes, itertools.count(start)
    try:
        yield
    finally:
        _block_sizes = saved


def block_size(lower_bound: int | None = None, upper_bound: int | None = None) -> Symbol:
    """A fresh meta-parameter `BLOCK_SIZE_<n>` for the schedule to choose."""
    return Symbol(
        f"BLOCK_SIZE_{next(_block_sizes)}",
        meta=True,
        lower_bound=lower_bound,
        upper_bound=upper_bound,
    )
