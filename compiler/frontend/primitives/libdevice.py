"""libdevice functions whose results are exact compositions of generic ops: bit reinterpretation,
correctly rounded arithmetic (`_rn`), conversions with a rounding mode, sign and class queries,
integer bit counts, halving adds, and the `fast_*` approximations (computed exactly, which is
within what they promise).

Those that round in a direction other than to nearest (`add_rz`, `int2float_rd`, ...) or whose
results no composition here matches to libdevice's accuracy (`erfinv`, `lgamma`, the Bessel
functions, ...) stay refused at the call's line.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.primitives.elementwise import _float, _unary, nearbyint, pow, trunc, umulhi
from compiler.frontend.primitives.elementwise import round as round_half_away
from compiler.frontend.primitives.transcendental import exp10, log10, tan
from compiler.ir.core import Value
from compiler.ir.types import BIT_WIDTHS, integer_bounds, is_float


def _bits(arith: Arith, x: object, source: str, target: str) -> Value:
    """`x` (cast to `source` first) with its bits read as `target`."""
    return arith.b.value("arith.bitcast", arith.cast(arith.as_value(x), source), dtype=target)


def _reinterpret(source: str, target: str) -> Callable:
    return lambda arith, arg0: _bits(arith, arg0, source, target)


def _to_int(rounding: str, source: str, target: str) -> Callable:
    """`float2int_rn` and its kin: round in the named mode, then convert as the hardware does,
    saturating (a value past the target's range gives its end, NaN gives 0)."""
    modes = {"rn": nearbyint, "rz": trunc, "rd": "math.floor", "ru": "math.ceil"}

    def convert(arith: Arith, arg0: object) -> Value:
        x = arith.cast(arith.as_value(arg0), source)
        mode = modes[rounding]
        rounded = arith.unary(mode, x) if isinstance(mode, str) else mode(arith, x)
        return _saturating(arith, rounded, target)

    return convert


def _saturating(arith: Arith, x: Value, target: str) -> Value:
    """A whole-numbered float as the integer type `target`, saturating; NaN gives 0."""
    low, high = integer_bounds(target)
    end = high + 1
    inside = arith.binary(
        "arith.and", arith.compare("ge", x, float(low)), arith.compare("lt", x, float(end))
    )
    converted = arith.cast(arith.where(inside, x, 0.0), target)
    above = arith.where(arith.compare("ge", x, float(end)), end - 1, converted)
    return arith.where(arith.compare("lt", x, float(low)), low, above)


def _to_float(source: str, target: str) -> Callable:
    """`int2float_rn` and its kin: the conversion rounds to nearest."""
    return lambda arith, arg0: arith.cast(arith.cast(arith.as_value(arg0), source), target)


def _integer(arith: Arith, x: object, name: str) -> Value:
    x = arith.as_value(x)
    if is_float(x.type.dtype) or x.type.dtype == "i1":
        raise CompileError(f"libdevice.{name} takes integers, got {x.type}; cast it first")
    return x


def _unsigned(arith: Arith, x: Value) -> Value:
    width = BIT_WIDTHS[x.type.dtype]
    dtype = f"u{width}"
    return x if x.type.dtype == dtype else arith.b.value("arith.bitcast", x, dtype=dtype)


def popc(arith: Arith, arg0: object) -> Value:
    """The number of set bits, as an i32: pairs, nibbles, bytes summed in place (SWAR)."""
    x = _unsigned(arith, _integer(arith, arg0, "popc"))
    width = BIT_WIDTHS[x.type.dtype]
    mask = 2**width - 1
    for shift, pattern in ((1, 0x55), (2, 0x33), (4, 0x0F)):
        repeated = int.from_bytes(bytes([pattern]) * (width // 8), "little") & mask
        low = arith.binary("arith.and", x, repeated)
        high = arith.binary("arith.and", arith.binary("arith.shr", x, shift), repeated)
        x = arith.binary("arith.add", low, high)
    total = x
    for shift in range(8, width, 8):
        total = arith.binary("arith.add", total, arith.binary("arith.shr", x, shift))
    return arith.cast(arith.binary("arith.and", total, 0xFF), "i32")


def _unset_beyond(arith: Arith, arg0: object, name: str, shift: str) -> tuple[Value, int]:
    """The bits `x` leaves clear past its highest set bit (`shift` "arith.shr": those below
    it filled) or before its lowest (`arith.shl`: those above it filled), counted; and the
    width."""
    x = _unsigned(arith, _integer(arith, arg0, name))
    width = BIT_WIDTHS[x.type.dtype]
    step = 1
    while step < width:
        x = arith.binary("arith.or", x, arith.binary(shift, x, step))
        step *= 2
    return arith.binary("arith.sub", width, popc(arith, x)), width


def clz(arith: Arith, arg0: object) -> Value:
    """Leading zero bits, as an i32 (the width for 0)."""
    return _unset_beyond(arith, arg0, "clz", "arith.shr")[0]


def ffs(arith: Arith, arg0: object) -> Value:
    """The position (from 1) of the lowest set bit, 0 for 0: the zeros below it, plus one
    (counted without an unsigned subtraction, which TVM's simplifier takes for never wrapping)."""
    below, width = _unset_beyond(arith, arg0, "ffs", "arith.shl")
    return arith.where(arith.compare("eq", below, width), 0, arith.binary("arith.add", below, 1))


def brev(arith: Arith, arg0: object) -> Value:
    """The bits in reverse order, in `x`'s type: halves, quarters, ... swapped."""
    x = _integer(arith, arg0, "brev")
    dtype = x.type.dtype
    x = _unsigned(arith, x)
    width = BIT_WIDTHS[x.type.dtype]
    span = width // 2
    while span:
        block = (1 << span) - 1
        low_mask = sum(block << offset for offset in range(0, width, 2 * span))
        low = arith.binary("arith.shl", arith.binary("arith.and", x, low_mask), span)
        high = arith.binary("arith.and", arith.binary("arith.shr", x, span), low_mask)
        x = arith.binary("arith.or", low, high)
        span //= 2
    return x if x.type.dtype == dtype else arith.b.value("arith.bitcast", x, dtype=dtype)


def mulhi(arith: Arith, arg0: object, arg1: object) -> Value:
    """The high half of the signed double-width product: the unsigned one, less each operand
    where the other is negative (mod 2^width)."""
    x, y = arith.unify(_integer(arith, arg0, "mulhi"), _integer(arith, arg1, "mulhi"))
    high = umulhi(arith, x, y)
    for a, b in ((x, y), (y, x)):
        high = arith.binary("arith.sub", high, arith.where(arith.compare("lt", a, 0), b, 0))
    return high


def _halving(name: str, rounding: int) -> Callable:
    """`hadd`/`rhadd`: (x + y [+ 1]) >> 1 without the sum overflowing, in 64 bits."""

    def halve(arith: Arith, arg0: object, arg1: object) -> Value:
        x, y = arith.unify(_integer(arith, arg0, name), _integer(arith, arg1, name))
        wide = "i64" if not x.type.dtype.startswith("u") else "u64"
        total = arith.binary("arith.add", arith.cast(x, wide), arith.cast(y, wide))
        total = arith.binary("arith.add", total, rounding) if rounding else total
        return arith.cast(arith.binary("arith.shr", total, 1), x.type.dtype)

    return halve


def copysign(arith: Arith, arg0: object, arg1: object) -> Value:
    """`x`'s magnitude with `y`'s sign bit (-0.0 and NaNs' signs too)."""
    x, y = arith.unify(_float(arith, arg0), _float(arith, arg1))
    bits = f"i{BIT_WIDTHS[x.type.dtype]}"
    sign = -(2 ** (BIT_WIDTHS[x.type.dtype] - 1))
    magnitude = arith.binary("arith.and", _bits(arith, x, x.type.dtype, bits), ~sign)
    signed = arith.binary("arith.and", _bits(arith, y, y.type.dtype, bits), sign)
    return _bits(arith, arith.binary("arith.or", magnitude, signed), bits, x.type.dtype)


def signbit(arith: Arith, arg0: object) -> Value:
    """1 where the sign bit is set (-0.0 and negative NaNs included), else 0, as an i32."""
    x = _float(arith, arg0)
    bits = _bits(arith, x, x.type.dtype, f"i{BIT_WIDTHS[x.type.dtype]}")
    return arith.cast(arith.compare("lt", bits, 0), "i32")


def _finite(dtype: str) -> Callable:
    def finite(arith: Arith, arg0: object) -> Value:
        x = arith.cast(arith.as_value(arg0), dtype)
        return arith.cast(arith.compare("lt", arith.unary("math.abs", x), float("inf")), "i32")

    return finite


def fdim(arith: Arith, arg0: object, arg1: object) -> Value:
    """x - y where x > y, else +0; NaN where either is."""
    x, y = arith.unify(_float(arith, arg0), _float(arith, arg1))
    nan = arith.binary("arith.or", arith.b.value("math.isnan", x), arith.b.value("math.isnan", y))
    difference = arith.where(arith.compare("gt", x, y), arith.binary("arith.sub", x, y), 0.0)
    return arith.where(nan, arith.binary("arith.add", x, y), difference)


def saturatef(arith: Arith, arg0: object) -> Value:
    """`x` clamped to [0, 1]; NaN gives 0."""
    x = _float(arith, arg0)
    return arith.where(arith.compare("gt", x, 0.0), arith.binary("arith.min", x, 1.0), 0.0)


def _op(name: str) -> Callable:
    return lambda arith, arg0, arg1: arith.binary(name, _float(arith, arg0), arg1)


def _rounded_to_i64(rounding: Callable) -> Callable:
    """`llrint` (halves to even) and `llround` (halves away from zero) as i64, saturating."""
    return lambda arith, arg0: _saturating(arith, rounding(arith, _float(arith, arg0)), "i64")


_FLOATS = {"float": "f32", "double": "f64"}
_INTS = {"int": "i32", "uint": "u32", "ll": "i64", "ull": "u64"}

PRIMITIVES: dict[str, Callable] = {
    "float_as_int": _reinterpret("f32", "i32"),
    "int_as_float": _reinterpret("i32", "f32"),
    "float_as_uint": _reinterpret("f32", "u32"),
    "uint_as_float": _reinterpret("u32", "f32"),
    "double_as_longlong": _reinterpret("f64", "i64"),
    "longlong_as_double": _reinterpret("i64", "f64"),
    **{
        f"{f}2{i}_{mode}": _to_int(mode, fdtype, idtype)
        for f, fdtype in _FLOATS.items()
        for i, idtype in _INTS.items()
        for mode in ("rn", "rz", "rd", "ru")
    },
    **{
        f"{i}2{f}_rn": _to_float(idtype, fdtype)
        for f, fdtype in _FLOATS.items()
        for i, idtype in _INTS.items()
    },
    "double2float_rn": _to_float("f64", "f32"),
    "llrint": _rounded_to_i64(nearbyint),
    "llround": _rounded_to_i64(round_half_away),
    **{f"{name}_rn": _op(f"arith.{name}") for name in ("add", "sub", "mul")},
    "rcp_rn": lambda arith, arg0: arith.binary("arith.div", 1.0, _float(arith, arg0)),
    "fmod": _op("arith.irem"),  # on floats C's fmod, as Triton's %
    "hadd": _halving("hadd", 0),
    "rhadd": _halving("rhadd", 1),
    "finitef": _finite("f32"),
    "isfinited": _finite("f64"),
    **{f.__name__: f for f in (popc, clz, ffs, brev, mulhi, copysign, signbit, fdim, saturatef)},
    "fast_expf": _unary("math.exp"),
    "fast_logf": _unary("math.log"),
    "fast_log2f": _unary("math.log2"),
    "fast_log10f": log10,
    "fast_exp10f": exp10,
    "fast_sinf": _unary("math.sin"),
    "fast_cosf": _unary("math.cos"),
    "fast_tanf": tan,
    "fast_tanhf": _unary("math.tanh"),
    "fast_powf": pow,
    "fast_dividef": lambda arith, arg0, arg1: arith.binary("arith.div", arg0, arg1),
}
