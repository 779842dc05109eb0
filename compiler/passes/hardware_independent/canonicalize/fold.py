"""Constant folding and algebraic identities, in place; `fold(kernel)` says whether it changed.

Ops on constants become constants (splats keep their tile type); `x+0`, `x-0`, `x*1`, `x*0`, `x//1`
and friends reduce to an operand; `and`/`or`/`not` on constant i1, `select.where` on a constant
condition and comparisons the value-range analysis decides are resolved; a reduction to a tile
along an axis of one element is a reshape; integer offsets `(a + c1) ± c2` reassociate to
`a ± c`; a float division by a power of two or a zero becomes a multiplication by its
reciprocal. Float identities are applied only where they are exact.
"""

from __future__ import annotations

import math

from compiler.ir import Block, Kernel, Operation, TileType, Value, lookup
from compiler.ir.types import is_float, is_integer
from compiler.passes.helpers.constants import (
    Scalar,
    constant_value,
    evaluate,
    make_constant,
    represent,
)
from compiler.passes.helpers.ranges import ValueRanges
from compiler.passes.helpers.rewrite import builder_before, defining_op


def fold(kernel: Kernel) -> bool:
    ranges = ValueRanges(kernel)
    # A folded op's uses are redirected as each later op is reached: uses follow their definition
    # in program order, so this is `replace_op` without a walk of the kernel per folded op.
    replaced: dict[Value, Value] = {}
    erased: dict[Block, set[Operation]] = {}  # out of each block at once, not one by one
    for op in list(kernel.walk()):
        if replaced and not replaced.keys().isdisjoint(op.operands):
            op.operands = [replaced.get(v, v) for v in op.operands]
        if op.parent is None or op.name == "arith.constant" or not _is_pure_value(op):
            continue
        replacement = _fold(op, ranges)
        if replacement is not None:
            replaced[op.result] = replacement
            erased.setdefault(op.parent, set()).add(op)
            op.parent = None
    for block, ops in erased.items():
        block.ops[:] = [op for op in block.ops if op not in ops]
    if replaced:  # a use out of program order, should there be one
        for op in kernel.walk():
            if not replaced.keys().isdisjoint(op.operands):
                op.operands = [replaced.get(v, v) for v in op.operands]
    return bool(replaced)


def _is_pure_value(op: Operation) -> bool:
    return lookup(op.name).effect == "pure" and len(op.results) == 1


def _fold(op: Operation, ranges: ValueRanges) -> Value | None:
    constants = list(map(constant_value, op.operands))
    if op.operands and None not in constants:
        value = evaluate(op, constants)
        if value is not None:
            return make_constant(builder_before(op), value, op.result.type)
    if op.name == "arith.cmp":
        decided = ranges.decide(op)
        if decided is None:
            return None
        return make_constant(builder_before(op), decided, op.result.type)
    if op.name == "select.where":
        return _fold_where(op, constants[0])
    if op.name in ("tile.broadcast", "arith.cast") and op.operands[0].type == op.result.type:
        return op.operands[0]
    if op.name in ("tile.sort", "scan.sum") and op.result.type.shape[op.attrs["axis"]] == 1:
        return op.operands[0]  # one element along the axis: nothing to order or add
    if _reduces_one(op):  # each result element is its one source element
        shape = list(op.result.type.shape)
        return builder_before(op).value("tile.reshape", op.operands[0], shape=shape)
    identity = _identity(op, constants)
    if identity is not None:
        return identity
    return _reciprocal(op, constants[1]) if op.name == "arith.div" else _reassociate(op)


def _reduces_one(op: Operation) -> bool:
    """A reduction along an axis of one element, to a tile (a scalar result is left as it is)."""
    if not op.name.startswith("reduce.") or not isinstance(op.result.type, TileType):
        return False
    return op.operands[0].type.shape[op.attrs["axis"]] == 1


def _fold_where(op: Operation, condition: Scalar | None) -> Value | None:
    _, if_true, if_false = op.operands
    if if_true is if_false:
        return if_true
    return None if condition is None else if_true if condition else if_false


# The ops `_identity` knows identities of.
_IDENTITY_OPS = frozenset(
    f"arith.{name}" for name in ("not", "add", "sub", "mul", "idiv", "div", "and", "or")
)


def _identity(op: Operation, constants: list[Scalar | None]) -> Value | None:
    """An operand that `op` always equals, by the algebraic identities that are exact."""
    if op.name not in _IDENTITY_OPS:
        return None
    dtype = op.result.type.dtype
    integer = is_integer(dtype)
    if op.name == "arith.not":
        inner = defining_op(op.operands[0])
        return inner.operands[0] if inner is not None and inner.name == "arith.not" else None
    if len(op.operands) != 2:
        return None
    (a, b), (ca, cb) = op.operands, constants
    if op.name == "arith.add" and integer:
        return a if _is(cb, 0) else b if _is(ca, 0) else None
    if op.name == "arith.sub":
        return a if _is(cb, 0) else None
    if op.name == "arith.mul":
        if integer and (_is(ca, 0) or _is(cb, 0)):
            return a if _is(ca, 0) else b
        return a if _is(cb, 1) else b if _is(ca, 1) else None
    if (op.name == "arith.idiv" and integer) or (op.name == "arith.div" and is_float(dtype)):
        return a if _is(cb, 1) else None
    if op.name in ("arith.and", "arith.or") and dtype == "i1":
        absorbing = op.name == "arith.or"  # x or true = true; x and false = false
        for x, c, other in ((a, ca, b), (b, cb, a)):
            if c is not None:
                return x if bool(c) == absorbing else other
        return a if a is b else None
    return None


def _reciprocal(op: Operation, divisor: Scalar | None) -> Value | None:
    """`x / c` -> `x * (1 / c)` where the reciprocal is exact in every float type: c a power of two
    in [2^-14, 2^14], or a zero (x / +-0.0 is x * +-inf). A product is cheaper, and no target then
    meets a division by a constant zero (TIR's constant folder rejects one)."""
    if divisor is None or not is_float(op.result.type.dtype) or not math.isfinite(divisor):
        return None
    mantissa, exponent = math.frexp(divisor)
    if divisor != 0 and (abs(mantissa) != 0.5 or not -13 <= exponent <= 15):
        return None
    inverse = 1.0 / divisor if divisor != 0 else math.copysign(math.inf, divisor)
    b = builder_before(op)
    factor = make_constant(b, inverse, op.operands[1].type)
    return b.value("arith.mul", op.operands[0], factor)


def _is(constant: Scalar | None, number: int) -> bool:
    """`constant` is exactly `number` (and not -0.0, which is no additive identity)."""
    if constant is None or constant != number:
        return False
    return not (isinstance(constant, float) and math.copysign(1.0, constant) < 0)


def _reassociate(op: Operation) -> Value | None:
    """`(a + c1) + c2`, `(a + c1) - c2`, `(a - c1) ± c2`, `c2 + (a + c1)` -> `a ± c` (integers)."""
    if op.name not in ("arith.add", "arith.sub") or not is_integer(op.result.type.dtype):
        return None
    outer = _offset(op)
    if outer is None:
        return None
    inner_value, outer_offset = outer
    inner = defining_op(inner_value)
    inner_offset = _offset(inner) if inner is not None else None
    if inner_offset is None:
        return None
    base, offset = inner_offset[0], inner_offset[1] + outer_offset
    if offset == 0:
        return base
    type_ = op.result.type
    if represent(type_.dtype, abs(offset)) is None:
        return None
    builder = builder_before(op)
    name = "arith.add" if offset > 0 else "arith.sub"
    return builder.value(name, base, make_constant(builder, abs(offset), type_))


def _offset(op: Operation) -> tuple[Value, int] | None:
    """`op` as `value + offset` with a constant integer offset, if it is an add or sub of one."""
    if op.name not in ("arith.add", "arith.sub") or not is_integer(op.result.type.dtype):
        return None
    (a, b), (ca, cb) = op.operands, [constant_value(v) for v in op.operands]
    if cb is not None:
        return a, cb if op.name == "arith.add" else -cb
    if ca is not None and op.name == "arith.add":
        return b, ca
    return None
