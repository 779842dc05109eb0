"""The grid expression is evaluated without eval: names, ints, + - * // % and parentheses."""

from __future__ import annotations

import pytest

from compiler.runtime import GridError, evaluate_grid


def test_evaluates_over_arguments_and_meta_symbols():
    env = {"n": 1000, "BLOCK_SIZE_0": 64, "M": 37, "N": 45}
    assert evaluate_grid("(n + BLOCK_SIZE_0 - 1) // BLOCK_SIZE_0", env) == 16
    assert evaluate_grid("((M + 15) // 16) * ((N + 15) // 16)", env) == 9
    assert evaluate_grid("n % 7", env) == 6
    assert evaluate_grid("1", {}) == 1


@pytest.mark.parametrize(
    "expression, message",
    [
        ("n ** 2", "is not allowed"),
        ("__import__('os')", "is not allowed"),
        ("n.real", "is not allowed"),
        ("-n", "is not allowed"),
        ("True", "is not allowed"),
        ("1.5", "is not allowed"),
        ("m + 1", "'m' is not bound; bound: n"),
        ("n // 0", "divides by zero"),
        ("4 // (z // 4)", "z = 0, and the arrangement counts tiles by it"),
        ("0 - n", "is negative"),
        ("n +", "is not an expression"),
    ],
)
def test_rejects(expression, message):
    with pytest.raises(GridError, match=message):
        evaluate_grid(expression, {"n": 4, "z": 0})
