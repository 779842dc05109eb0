"""Triton's random numbers: counter-based Philox (`philox`, `philox_impl`), `randint`/`rand`/`randn`
and their four-stream forms (`randint4x`, `rand4x`, `randn4x`), `uint_to_uniform_float` and
`pair_uniform_to_normal`, composed from integer and math ops as Triton's `random.py` composes them.

The same seed and offsets give the same numbers on every backend, bit for bit the ones Triton's own
functions give. Words wrap as unsigned arithmetic; the high half of a product is `ntl.umulhi`'s
composition; a word becomes signed by its bits (`arith.bitcast`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.primitives.elementwise import umulhi
from compiler.ir.core import Value
from compiler.ir.types import BIT_WIDTHS, is_float

N_ROUNDS = 10
# (key A, key B, round A, round B) for 32- and 64-bit words
CONSTANTS = {
    32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
    64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157),
}
UNIFORM_SCALE = {32: 4.6566127342e-10, 64: 1.0842020432385337e-19}


def _width(value: Value, name: str, widths: tuple[int, ...]) -> int:
    """The bit width of an integer operand (an index counts as 64 bits), one of `widths`."""
    dtype = value.type.dtype
    width = 64 if dtype == "index" else BIT_WIDTHS.get(dtype, 0)
    if is_float(dtype) or dtype == "i1" or width not in widths:
        allowed = (
            ", ".join(map(str, widths[:-1])) + f" or {widths[-1]}" if widths[1:] else widths[0]
        )
        raise CompileError(
            f"ntl.{name} takes integers of {allowed} bits, got {dtype}; cast it first, e.g. "
            f"x.to(ntl.uint{widths[-1]})"
        )
    return width


def _bits(arith: Arith, value: Value, dtype: str) -> Value:
    return (
        value if value.type.dtype == dtype else arith.b.value("arith.bitcast", value, dtype=dtype)
    )


def philox_impl(
    arith: Arith,
    c0: object,
    c1: object,
    c2: object,
    c3: object,
    k0: object,
    k1: object,
    n_rounds: int = N_ROUNDS,
) -> tuple[Value, Value, Value, Value]:
    """`n_rounds` rounds of Philox on the state (c0..c3) and key (k0, k1), unsigned words of 32 or
    64 bits."""
    c0, c1, c2, c3, k0, k1 = (arith.as_value(v) for v in (c0, c1, c2, c3, k0, k1))
    dtypes = {v.type.dtype for v in (c0, c1, c2, c3, k0, k1)}
    dtype = c0.type.dtype
    if dtypes != {dtype} or dtype not in ("u32", "u64"):
        raise CompileError(
            f"ntl.philox_impl takes six words of one dtype, uint32 or uint64, got "
            f"{', '.join(sorted(dtypes))}; bitcast them first (x.to(ntl.uint32, bitcast=True)), "
            "or call ntl.philox, which does"
        )
    key_a, key_b, round_a, round_b = CONSTANTS[BIT_WIDTHS[dtype]]
    for _ in range(n_rounds):
        previous_c0, previous_c2 = c0, c2
        c0 = arith.binary(
            "arith.xor", arith.binary("arith.xor", umulhi(arith, round_b, previous_c2), c1), k0
        )
        c2 = arith.binary(
            "arith.xor", arith.binary("arith.xor", umulhi(arith, round_a, previous_c0), c3), k1
        )
        c1 = arith.binary("arith.mul", previous_c2, round_b)
        c3 = arith.binary("arith.mul", previous_c0, round_a)
        k0 = arith.binary("arith.add", k0, key_a)
        k1 = arith.binary("arith.add", k1, key_b)
    return c0, c1, c2, c3


def philox(
    arith: Arith,
    seed: object,
    c0: object,
    c1: object,
    c2: object,
    c3: object,
    n_rounds: int = N_ROUNDS,
) -> tuple[Value, Value, Value, Value]:
    """Philox keyed by an integer seed: 32-bit counters take the seed's two halves as the key,
    64-bit ones the whole seed and a zero."""
    seed = arith.as_value(seed)
    _width(seed, "philox's seed", (8, 16, 32, 64))
    seed = arith.cast(seed, "u64")
    counters = [arith.as_value(c) for c in (c0, c1, c2, c3)]
    width = _width(counters[0], "philox's counters", (32, 64))
    word = f"u{width}"
    if width == 32:
        k0 = arith.cast(seed, "u32")
        k1 = arith.cast(arith.binary("arith.shr", seed, 32), "u32")
    else:
        k0, k1 = seed, arith.constant(0, "u64")
    widths = {_width(c, "philox's counters", (width,)) for c in counters}
    if widths != {width}:
        raise CompileError(f"ntl.philox's counters need one width, got {widths}")
    words = [_bits(arith, c, word) for c in counters]
    return philox_impl(arith, *words, k0, k1, n_rounds)


def randint4x(
    arith: Arith, seed: object, offset: object, n_rounds: int = N_ROUNDS
) -> tuple[Value, Value, Value, Value]:
    """Four u32 streams at `offset`: its low word and, for offsets wider than 32 bits, its high
    word as the counter."""
    offset = arith.as_value(offset)
    width = _width(offset, "randint's offset", (8, 16, 32, 64))
    if offset.type.dtype == "index":  # an index may be 32 bits wide on the target
        offset = arith.cast(offset, "i64")
    low = arith.cast(offset, "u32")
    zero = arith.b.broadcast_to(arith.constant(0, "u32"), low.type.shape)
    high = arith.cast(arith.binary("arith.shr", offset, 32), "u32") if width > 32 else zero
    return philox(arith, seed, low, high, zero, zero, n_rounds)


def randint(arith: Arith, seed: object, offset: object, n_rounds: int = N_ROUNDS) -> Value:
    return randint4x(arith, seed, offset, n_rounds)[0]


def uint_to_uniform_float(arith: Arith, x: object) -> Value:
    """A 32- or 64-bit random word as an f32 in [0, 1): its bits as a signed integer, folded to
    >= 0, scaled below 1."""
    x = arith.as_value(x)
    width = _width(x, "uint_to_uniform_float", (32, 64))
    x = _bits(arith, x, f"i{width}")
    x = arith.where(arith.compare("lt", x, 0), arith.binary("arith.xor", x, -1), x)
    return arith.binary("arith.mul", arith.cast(x, "f32"), UNIFORM_SCALE[width])


def rand(arith: Arith, seed: object, offset: object, n_rounds: int = N_ROUNDS) -> Value:
    return uint_to_uniform_float(arith, randint(arith, seed, offset, n_rounds))


def rand4x(
    arith: Arith, seed: object, offsets: object, n_rounds: int = N_ROUNDS
) -> tuple[Value, Value, Value, Value]:
    words = randint4x(arith, seed, offsets, n_rounds)
    return tuple(uint_to_uniform_float(arith, word) for word in words)


def pair_uniform_to_normal(arith: Arith, u1: object, u2: object) -> tuple[Value, Value]:
    """Box-Muller: two uniform numbers to two standard normal ones."""
    u1 = arith.binary("arith.max", u1, 1.0e-7)
    angle = arith.binary("arith.mul", u2, 2 * math.pi)
    radius = arith.unary("math.sqrt", arith.binary("arith.mul", arith.unary("math.log", u1), -2.0))
    return tuple(
        arith.binary("arith.mul", radius, arith.unary(f"math.{f}", angle)) for f in ("cos", "sin")
    )


def randn(arith: Arith, seed: object, offset: object, n_rounds: int = N_ROUNDS) -> Value:
    first, second, _, _ = rand4x(arith, seed, offset, n_rounds)
    return pair_uniform_to_normal(arith, first, second)[0]


def randn4x(
    arith: Arith, seed: object, offset: object, n_rounds: int = N_ROUNDS
) -> tuple[Value, Value, Value, Value]:
    u1, u2, u3, u4 = rand4x(arith, seed, offset, n_rounds)
    return (*pair_uniform_to_normal(arith, u1, u2), *pair_uniform_to_normal(arith, u3, u4))


PRIMITIVES: dict[str, Callable] = {
    f.__name__: f
    for f in (
        philox_impl,
        philox,
        randint4x,
        randint,
        uint_to_uniform_float,
        rand,
        rand4x,
        pair_uniform_to_normal,
        randn,
        randn4x,
    )
}
