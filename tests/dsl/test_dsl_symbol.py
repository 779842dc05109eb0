"""Symbolic integer expressions: folding, equality, evaluation, substitution, printing."""

import operator
import os
import pickle
import random
import subprocess
import sys

import pytest

from compiler.dsl import Symbol, block_size
from compiler.dsl.symbol import Const, Expr, as_expr

a, b, c = Symbol("a"), Symbol("b"), Symbol("c")


def test_constants_fold():
    assert Const(2) + 3 == 5
    assert isinstance(7 // as_expr(2), Const)
    assert (as_expr(-7) % 3).value == 2


@pytest.mark.parametrize(
    ("built", "expected"),
    [
        (a + 0, a),
        (0 + a, a),
        (a - 0, a),
        (a * 1, a),
        (1 * a, a),
        (a * 0, Const(0)),
        (a // 1, a),
        (a % 1, Const(0)),
        (operator.neg(-a), a),
        (a - a, Const(0)),
        (a - (a - 1), Const(1)),
        (1 + a, a + 1),
        (2 * (a + 1) - a, a + 2),
    ],
)
def test_identities_and_linear_forms(built, expected):
    assert built == expected


def test_equality_is_structural_and_never_builds_expressions():
    assert Const(-1) == -1
    assert hash(Const(3)) == hash(3)
    assert (a == b) is False
    assert a == Symbol("a", constexpr=True)
    assert {a + 1: "x"}[Symbol("a") + 1] == "x"
    assert a // b != b // a


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        ((a + b) * c, "(a + b) * c"),
        (a // (b * c), "a // (b * c)"),
        (a * (b // c), "a * (b // c)"),
        (-(a // b), "-(a // b)"),
        ((a - 1) // b + 1, "(a - 1) // b + 1"),
        (b - a + 3, "b - a + 3"),
        (a % (b + 2), "a % (b + 2)"),
    ],
)
def test_printing(expr, text):
    assert str(expr) == text


def test_evaluate_uses_floor_semantics_and_names_missing_symbols():
    assert (a // b).evaluate({"a": -7, "b": 2}) == -4
    assert (a % b).evaluate({"a": -7, "b": 2}) == 1
    with pytest.raises(ValueError, match="'b'"):
        (a + b).evaluate({"a": 1})


def test_substitute_and_free_symbols():
    assert (a * b + c).substitute({"a": 2, "c": b}) == 3 * b
    assert (a * b + a).free_symbols() == frozenset({a, b})
    assert Const(4).free_symbols() == frozenset()


def test_symbol_defaults_follow_ninetoothed():
    meta = Symbol("m", meta=True)
    assert (meta.constexpr, meta.lower_bound, meta.upper_bound, meta.power_of_two) == (
        True,
        32,
        1024,
        True,
    )
    constexpr = Symbol("k", constexpr=True, upper_bound=16)
    assert (constexpr.lower_bound, constexpr.upper_bound, constexpr.power_of_two) == (1, 16, False)
    assert (a.constexpr, a.meta, a.lower_bound) == (False, False, None)


def test_symbol_errors():
    with pytest.raises(ValueError, match="identifier"):
        Symbol("a + 1")
    with pytest.raises(ValueError, match="always constexpr"):
        Symbol("m", meta=True, constexpr=False)


def test_block_size_makes_fresh_meta_symbols():
    first, second = block_size(), block_size(lower_bound=16)
    assert first.name.startswith("BLOCK_SIZE_") and first.meta
    assert int(second.name.rsplit("_", 1)[1]) == int(first.name.rsplit("_", 1)[1]) + 1
    assert second.lower_bound == 16


OPERATIONS = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod]


def random_pair(rng, depth):
    """A random expression over a, b, c and its value at a=5, b=-3, c=7."""
    if depth == 0 or rng.random() < 0.25:
        leaf = rng.choice([a, b, c, rng.randint(-4, 4)])
        value = leaf.evaluate({"a": 5, "b": -3, "c": 7}) if isinstance(leaf, Expr) else leaf
        return as_expr(leaf), value
    if rng.random() < 0.15:
        expr, value = random_pair(rng, depth - 1)
        return -expr, -value
    operation = rng.choice(OPERATIONS)
    left, left_value = random_pair(rng, depth - 1)
    right, right_value = random_pair(rng, depth - 1)
    if operation in (operator.floordiv, operator.mod) and right_value == 0:
        return left, left_value
    return operation(left, right), operation(left_value, right_value)


def test_folding_preserves_values_of_random_expressions():
    rng = random.Random(0)
    for _ in range(1000):
        expr, value = random_pair(rng, 4)
        assert expr.evaluate({"a": 5, "b": -3, "c": 7}) == value, str(expr)
        assert as_expr(expr.substitute({"a": 5, "b": -3, "c": 7})) == value, str(expr)


def test_an_expression_sent_to_another_process_hashes_there():
    """Hashes are remembered per expression; a string's hash differs between processes."""
    key = Symbol("n") + 1
    hash(key)  # remembered here
    sent = pickle.dumps({key: 5})
    program = (
        "import pickle, sys\n"
        "from compiler.dsl.symbol import Symbol\n"
        "table = pickle.loads(sys.stdin.buffer.read())\n"
        "print(table[Symbol('n') + 1])\n"
    )
    environment = {**os.environ, "PYTHONHASHSEED": "7"}
    done = subprocess.run(
        [sys.executable, "-c", program], input=sent, capture_output=True, env=environment
    )
    assert done.stdout.decode().strip() == "5", done.stderr.decode()[-2000:]
