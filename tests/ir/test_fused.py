"""The interpreter's `math.fma` rounds a * b + c once, exactly, to f32 or f64."""

from fractions import Fraction

import numpy as np

from compiler.ir.fused import fused_multiply_add


def test_one_rounding_where_two_lose_the_last_bits():
    x = np.float32(1 + 2**-13)
    got = fused_multiply_add(np.array([x]), np.array([x]), np.array([np.float32(-(1 + 2**-12))]))
    assert got.dtype == np.float32 and got.tolist() == [2.0**-26]  # x * x rounds it away


def test_each_element_is_the_exact_value_rounded_to_nearest():
    g = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        a, b, c = (g.standard_normal(300).astype(dtype) for _ in range(3))
        c[:100] = -(a[:100] * b[:100])  # the product's rounding error alone
        got = fused_multiply_add(a, b, c)
        for x, y, z, value in zip(a, b, c, got, strict=True):
            exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
            below, above = np.nextafter(value, dtype(-np.inf)), np.nextafter(value, dtype(np.inf))
            error = abs(exact - Fraction(float(value)))
            assert error <= abs(exact - Fraction(float(below)))
            assert error <= abs(exact - Fraction(float(above)))


def test_a_tie_goes_to_the_even_neighbour():
    # 1 + 2^-24 lies halfway between 1 and 1 + 2^-23: f32 gives the even one, 1
    one, half_ulp = np.float32(1.0), np.float32(2.0**-24)
    got = fused_multiply_add(np.array([half_ulp]), np.array([one]), np.array([one]))
    assert got.tolist() == [1.0]
    # 1 + 3 * 2^-24 lies halfway between 1 + 2^-23 and 1 + 2^-22: the even one is 1 + 2^-22
    got = fused_multiply_add(np.array([half_ulp]), np.array([np.float32(3.0)]), np.array([one]))
    assert got.tolist() == [1 + 2.0**-22]


def test_special_values_and_signed_zeros():
    f = np.float32
    inf, nan = f(np.inf), f(np.nan)
    got = fused_multiply_add(
        np.array([inf, f(-0.0), f(2.0)]),
        np.array([f(0.0), f(1.0), f(3.0)]),
        np.array([f(1.0), f(-0.0), f(-6.0)]),
    )
    assert np.isnan(got[0]) and np.signbit(got[1]) and got[1] == 0
    assert got[2] == 0 and not np.signbit(got[2])  # an exact cancellation is +0
    assert np.isnan(fused_multiply_add(np.array([nan]), np.array([f(1.0)]), np.array([f(1.0)]))[0])
