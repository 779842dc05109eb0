"""`ntl.rand`, `randn`, `randint`: Triton's counter-based Philox 4x32, composed from integer ops.

The same seed and offsets give the same numbers on every backend, bit for bit the ones Triton's own
`tl.rand` gives. 32-bit words wrap as u32 arithmetic; the high half of a 32 x 32 product comes
from a u64 product divided by 2^32; the word becomes an i32 by its bits (`arith.bitcast`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from compiler.frontend.arith import Arith
from compiler.ir.core import Value

ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85
WORD = 2**32


def _u32(arith: Arith, value: int, like: Value) -> Value:
    return arith.b.broadcast_to(arith.constant(value, "u32"), like.type.shape)


def _high_word(arith: Arith, x: Value) -> Value:
    """The bits of a u64 above the low 32, as a u32."""
    return arith.cast(arith.binary("arith.idiv", x, arith.constant(WORD, "u64")), "u32")


def _umulhi(arith: Arith, constant: int, x: Value) -> Value:
    return _high_word(
        arith, arith.binary("arith.mul", arith.cast(x, "u64"), arith.constant(constant, "u64"))
    )


def _philox(arith: Arith, seed: object, offset: object, rounds: int) -> tuple[Value, ...]:
    offset = arith.cast(arith.as_value(offset), "i64")
    seed = arith.cast(arith.as_value(seed), "u64")
    c0 = arith.cast(offset, "u32")
    c1 = _high_word(arith, arith.cast(offset, "u64"))
    c2 = c3 = _u32(arith, 0, c0)
    k0, k1 = arith.cast(seed, "u32"), _high_word(arith, seed)
    for _ in range(rounds):
        low_a, low_b = (
            arith.binary("arith.mul", _u32(arith, k, c0), c)
            for k, c in ((ROUND_A, c0), (ROUND_B, c2))
        )
        c0, c2 = (
            arith.binary(
                "arith.xor", arith.binary("arith.xor", _umulhi(arith, ROUND_B, c2), c1), k0
            ),
            arith.binary(
                "arith.xor", arith.binary("arith.xor", _umulhi(arith, ROUND_A, c0), c3), k1
            ),
        )
        c1, c3 = low_b, low_a
        k0 = arith.binary("arith.add", k0, arith.constant(KEY_A, "u32"))
        k1 = arith.binary("arith.add", k1, arith.constant(KEY_B, "u32"))
    return c0, c1, c2, c3


def _uniform(arith: Arith, bits: Value) -> Value:
    """Triton's `uint_to_uniform_float`: the word as i32, folded to >= 0, scaled below 1."""
    x = arith.b.value("arith.bitcast", bits, dtype="i32")
    x = arith.where(arith.compare("lt", x, 0), arith.binary("arith.xor", x, -1), x)
    return arith.binary("arith.mul", arith.cast(x, "f32"), 4.6566127342e-10)


def randint(arith: Arith, seed: object, offset: object, n_rounds: int = 10) -> Value:
    """The first Philox word, a u32 as Triton's `randint` returns it."""
    return _philox(arith, seed, offset, n_rounds)[0]


def rand(arith: Arith, seed: object, offset: object, n_rounds: int = 10) -> Value:
    return _uniform(arith, _philox(arith, seed, offset, n_rounds)[0])


def randn(arith: Arith, seed: object, offset: object, n_rounds: int = 10) -> Value:
    """Box-Muller on the first two words, as Triton's `pair_uniform_to_normal`."""
    first, second, _, _ = _philox(arith, seed, offset, n_rounds)
    u1 = arith.binary("arith.max", _uniform(arith, first), 1.0e-7)
    angle = arith.binary("arith.mul", _uniform(arith, second), 2 * math.pi)
    radius = arith.unary("math.sqrt", arith.binary("arith.mul", arith.unary("math.log", u1), -2.0))
    return arith.binary("arith.mul", radius, arith.unary("math.cos", angle))


PRIMITIVES: dict[str, Callable] = {f.__name__: f for f in (randint, rand, randn)}
