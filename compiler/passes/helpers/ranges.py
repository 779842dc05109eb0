"""A small integer value-range analysis, enough to decide bounds checks that always pass.

Program ids, meta symbols and the kernel's `index` arguments (sizes, strides) are non-negative;
`tile.arange(n)` lies in [0, n-1]; an `scf.for` induction variable lies in [lb, ub-1] and, for a
positive step, is below its own loop's upper bound and at least its lower bound. `index` and `i64`
arithmetic is taken not to wrap; another integer keeps a range only while it provably fits, and
is anywhere in its dtype's range after that (its arithmetic wraps).
"""

from __future__ import annotations

from compiler.ir import Block, Kernel, Operation, Value
from compiler.ir.types import BIT_WIDTHS, integer_bounds, is_integer
from compiler.passes.helpers.constants import represent
from compiler.passes.helpers.rewrite import defining_op

Bound = int | None  # None: unbounded on that side
Interval = tuple[Bound, Bound]

_UNKNOWN: Interval = (None, None)
_NO_WRAP = ("index", "i64")
_SPLAT_OPS = ("tile.broadcast", "tile.expand_dims", "tile.trans")
_SWAPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
# What `iv <pred> ub` and `iv <pred> lb` always give for a loop's induction variable `iv`.
_BELOW_UPPER = {"lt": True, "le": True, "gt": False, "ge": False, "eq": False, "ne": True}
_FROM_LOWER = {"ge": True, "lt": False}


class ValueRanges:
    def __init__(self, kernel: Kernel):
        self.cache: dict[Value, Interval] = {}
        self.meta: dict[str, Interval] = {
            name: (max(low or 0, 0), high) for name, low, high in kernel.attrs.get("meta", [])
        }
        for arg in kernel.args:
            if arg.type.dtype == "index":
                self.cache[arg] = (0, None)

    def decide(self, cmp: Operation) -> bool | None:
        """The value every lane of `arith.cmp` takes, when the analysis can tell."""
        a, b = _strip_splats(cmp.operands[0]), _strip_splats(cmp.operands[1])
        pred = cmp.attrs["pred"]
        for x, y, p in ((a, b, pred), (b, a, _SWAPPED[pred])):
            known = self._loop_fact(x, y, p)
            if known is None:
                known = self._remainder_fact(x, y, p)
            if known is not None:
                return known
        if not is_integer(a.type.dtype):
            return None
        return _compare(pred, self.bounds(a), self.bounds(b))

    def bounds(self, value: Value) -> Interval:
        interval = self.cache.get(value)
        if interval is None:
            dtype = value.type.dtype
            interval = self._compute(value) if is_integer(dtype) else _UNKNOWN
            if dtype not in _NO_WRAP and not _fits(dtype, interval):
                interval = _whole_range(dtype)
            self.cache[value] = interval
        return interval

    def may_overflow(self, op: Operation) -> bool:
        """Whether integer arithmetic `op` (add, sub, mul, neg, shl, ...) may leave its result's
        dtype: its exact result is not proven within it. An operand whose own range is not
        proven within its dtype counts as anywhere in it (its value may have wrapped before)."""
        operands = []
        for operand in op.operands:
            interval, dtype = self.bounds(operand), operand.type.dtype
            operands.append(interval if _fits(dtype, interval) else _whole_range(dtype))
        return not _fits(op.results[0].type.dtype, _ARITH[op.name](*operands))

    def _loop_fact(self, iv: Value, other: Value, pred: str) -> bool | None:
        loop = loop_of_induction_variable(iv)
        if loop is None or not _at_least(self.bounds(loop.operands[2]), 1):
            return None
        lower, upper = loop.operands[:2]
        if other is upper:
            return _BELOW_UPPER[pred]
        return _FROM_LOWER.get(pred) if other is lower else None

    def _remainder_fact(self, remainder: Value, divisor: Value, pred: str) -> bool | None:
        """`x % n < n` for a non-negative `x` (the IR's remainder takes the sign of `x`)."""
        op = defining_op(remainder)
        if op is None or op.name != "arith.irem" or op.operands[1] is not divisor:
            return None
        if not _at_least(self.bounds(op.operands[0]), 0):
            return None
        return _BELOW_UPPER[pred] if pred in ("lt", "ge") else None

    def _compute(self, value: Value) -> Interval:
        op = value.owner
        if type(op) is not Operation:  # a kernel or block argument
            loop = loop_of_induction_variable(value)
            if loop is None:
                return _UNKNOWN
            return self.bounds(loop.operands[0])[0], _add(self.bounds(loop.operands[1])[1], -1)
        name = op.name
        arith = _ARITH.get(name)
        if arith is not None:
            return arith(*map(self.bounds, op.operands))
        if name == "arith.constant":
            constant = op.attrs["value"]
            return (constant, constant) if isinstance(constant, int) else _UNKNOWN
        if name in _SPLAT_OPS or name == "arith.cast":
            return self.bounds(op.operands[0])
        if name == "index.program_id":
            return 0, None
        if name == "index.meta":
            return self.meta.get(op.attrs["name"], (0, None))
        if name == "tile.arange":
            size = op.attrs["size"]
            high = size if isinstance(size, int) else self.meta.get(size, _UNKNOWN)[1]
            return 0, _add(high, -1)
        if name == "select.where":
            (a_low, a_high), (b_low, b_high) = map(self.bounds, op.operands[1:])
            return _min(a_low, b_low), _max(a_high, b_high)
        return _UNKNOWN


def _whole_range(dtype: str) -> Interval:
    bits = BIT_WIDTHS.get(dtype)
    if bits is None or not is_integer(dtype) or dtype == "i1":
        return _UNKNOWN
    return integer_bounds(dtype)


def _fits(dtype: str, interval: Interval) -> bool:
    return all(bound is not None and represent(dtype, bound) is not None for bound in interval)


def _strip_splats(value: Value) -> Value:
    op = defining_op(value)
    while op is not None and op.name in _SPLAT_OPS:
        value = op.operands[0]
        op = defining_op(value)
    return value


def loop_of_induction_variable(value: Value) -> Operation | None:
    """The `scf.for` whose counter `value` is, if it is one."""
    block = value.owner
    if type(block) is not Block:  # a kernel argument or an op's result
        return None
    loop = block.parent.parent if block.parent is not None else None
    if isinstance(loop, Operation) and loop.name == "scf.for" and block.args[0] is value:
        return loop
    return None


def _compare(pred: str, a: Interval, b: Interval) -> bool | None:
    if pred in ("gt", "ge"):
        return _compare(_SWAPPED[pred], b, a)
    if pred == "ne":
        equal = _compare("eq", a, b)
        return None if equal is None else not equal
    (a_low, a_high), (b_low, b_high) = a, b
    if pred == "eq":
        if a_low is not None and a_low == a_high == b_low == b_high:
            return True
        return False if _lt(a_high, b_low) or _lt(b_high, a_low) else None
    if pred == "lt":
        return True if _lt(a_high, b_low) else False if _le(b_high, a_low) else None
    return True if _le(a_high, b_low) else False if _lt(b_high, a_low) else None


def _lt(x: Bound, y: Bound) -> bool:
    return x is not None and y is not None and x < y


def _le(x: Bound, y: Bound) -> bool:
    return x is not None and y is not None and x <= y


def _at_least(interval: Interval, low: int) -> bool:
    return interval[0] is not None and interval[0] >= low


def _add(x: Bound, y: Bound) -> Bound:
    return None if x is None or y is None else x + y


def _neg(x: Bound) -> Bound:
    return None if x is None else -x


def _min(x: Bound, y: Bound) -> Bound:
    return None if x is None or y is None else min(x, y)


def _max(x: Bound, y: Bound) -> Bound:
    return None if x is None or y is None else max(x, y)


def _tighter_low(x: Bound, y: Bound) -> Bound:
    """The larger of two lower bounds; an unbounded one (None) gives way."""
    return y if x is None else x if y is None else max(x, y)


def _tighter_high(x: Bound, y: Bound) -> Bound:
    """The smaller of two upper bounds; an unbounded one (None) gives way."""
    return y if x is None else x if y is None else min(x, y)


def _mul(a: Interval, b: Interval) -> Interval:
    if None not in a + b:
        corners = [x * y for x in a for y in b]
        return min(corners), max(corners)
    if _at_least(a, 0) and _at_least(b, 0):
        return a[0] * b[0], None
    return _UNKNOWN


def _nonzero_divisor(b: Interval) -> Interval:
    """Division by zero is undefined, so a program that divides by a non-negative `b` may take
    `b >= 1` (the grid's sizes are such divisors: with a zero size no program runs)."""
    return (max(b[0], 1), b[1]) if _at_least(b, 0) else b


def _idiv(a: Interval, b: Interval) -> Interval:
    b = _nonzero_divisor(b)
    if not _at_least(b, 1) or a[0] is None:
        return _UNKNOWN
    high = None if a[1] is None else max(a[1] // b[0], 0)
    if a[0] >= 0:
        return (0 if b[1] is None else a[0] // b[1]), high
    # Truncation toward zero: a dividend above -divisor gives 0 at worst, as in (n - 1) // B.
    return (0, high) if a[0] > -b[0] else _UNKNOWN


def _irem(a: Interval, b: Interval) -> Interval:
    b = _nonzero_divisor(b)
    if not (_at_least(a, 0) and _at_least(b, 1)):
        return _UNKNOWN
    return 0, _tighter_high(a[1], _add(b[1], -1))


def _shift_amounts(s: Interval) -> bool:
    """Whether every shift amount in `s` is one every integer shifts by (0 to 63)."""
    return _at_least(s, 0) and s[1] is not None and s[1] < 64


def _shl(a: Interval, s: Interval) -> Interval:
    if not (_at_least(a, 0) and _shift_amounts(s)):
        return _UNKNOWN
    return a[0] << s[0], None if a[1] is None else a[1] << s[1]


def _shr(a: Interval, s: Interval) -> Interval:
    """Of a non-negative `x`, where arithmetic and logical shifts agree."""
    if not (_at_least(a, 0) and _shift_amounts(s)):
        return _UNKNOWN
    return a[0] >> s[1], None if a[1] is None else a[1] >> s[0]


def _and(a: Interval, b: Interval) -> Interval:
    """Below each non-negative operand's bound: the and clears bits, never sets them."""
    highs = [x[1] for x in (a, b) if _at_least(x, 0) and x[1] is not None]
    return (0, min(highs)) if highs else _UNKNOWN


_ARITH = {
    "arith.add": lambda a, b: (_add(a[0], b[0]), _add(a[1], b[1])),
    "arith.sub": lambda a, b: (_add(a[0], _neg(b[1])), _add(a[1], _neg(b[0]))),
    "arith.mul": _mul,
    "arith.idiv": _idiv,
    "arith.irem": _irem,
    "arith.max": lambda a, b: (_tighter_low(a[0], b[0]), _max(a[1], b[1])),
    "arith.min": lambda a, b: (_min(a[0], b[0]), _tighter_high(a[1], b[1])),
    "arith.neg": lambda a: (_neg(a[1]), _neg(a[0])),
    "arith.shl": _shl,
    "arith.shr": _shr,
    "arith.and": _and,
}
