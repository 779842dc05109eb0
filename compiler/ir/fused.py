"""`math.fma` for the interpreter: a * b + c rounded once to the operands' float type.

numpy has no fused multiply-add, and computing in float64 rounds twice for float32 (Triton's
interpreter says the same), so each element is computed exactly as a fraction and rounded to the
nearest value of its type, ties to even.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

_BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    a, b, c = np.broadcast_arrays(*map(np.asarray, (a, b, c)))
    dtype = np.result_type(a, b, c)
    flat = [_fused(*terms, dtype.type) for terms in zip(a.flat, b.flat, c.flat, strict=True)]
    return np.array(flat, dtype=dtype).reshape(a.shape)


def _fused(a: float, b: float, c: float, kind: type) -> np.floating:
    if not all(np.isfinite((a, b, c))):  # infinities and NaN: as the unfused form gives them
        return kind(float(a) * float(b) + float(c))
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:  # IEEE's zero: -0 only for a -0 product plus -0, else +0
        product_negative = (a == 0 or b == 0) and np.signbit(a) != np.signbit(b)
        return kind(-0.0 if product_negative and c == 0 and np.signbit(c) else 0.0)
    return _nearest(exact, kind)


def _nearest(exact: Fraction, kind: type) -> np.floating:
    """`exact` rounded to the nearest `kind`, ties to even: Python's own rounding to float64,
    then a step to the neighbour where that double rounding left the nearer one behind."""
    try:
        guess = kind(float(exact))
    except OverflowError:
        return kind(np.inf if exact > 0 else -np.inf)
    if not np.isfinite(guess):
        return guess
    error = exact - Fraction(float(guess))
    if error == 0:
        return guess
    other = np.nextafter(guess, kind(np.inf if error > 0 else -np.inf))
    if not np.isfinite(other):
        return guess
    other_error = abs(exact - Fraction(float(other)))
    if other_error < abs(error):
        return other
    if other_error == abs(error):  # a tie: the even one
        return guess if int(guess.view(_BITS[np.dtype(kind)])) % 2 == 0 else other
    return guess
