"""Constant evaluation follows each dtype: integer widths, truncating division, float rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest

from compiler.ir import Builder
from compiler.ir.core import Block
from compiler.passes.helpers.constants import evaluate, represent


@pytest.mark.parametrize(
    ("dtype", "value", "expected"),
    [
        ("i8", 127, 127),
        ("i8", 128, None),
        ("u8", -1, None),
        ("u8", 255, 255),
        ("index", 2**63, None),
        ("i32", 2.9, 2),
        ("i32", -2.9, -2),
        ("i32", math.inf, None),
        ("i1", 3, True),
        ("f16", 0.1, float(np.float16(0.1))),
        ("f16", 1e6, math.inf),
        ("f32", 0.1, float(np.float32(0.1))),
        ("f64", 0.1, 0.1),
    ],
)
def test_represent_fits_the_dtype(dtype, value, expected):
    assert represent(dtype, value) == expected


# Expected values from torch.tensor(value, dtype=torch.float32).to(torch.bfloat16).item().
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.1, 0.10009765625),
        (1.0 / 3.0, 0.333984375),
        (-2.7182818, -2.71875),
        (65504.0, 65536.0),
        (3.0e38, 3.00405527047391e38),
        (1.0e-40, 9.183549615799121e-41),
        (3.3961775292304835e38, math.inf),
    ],
)
def test_bf16_rounds_to_nearest_even_like_torch(value, expected):
    assert represent("bf16", value) == expected
    assert math.isnan(represent("bf16", math.nan))


@pytest.mark.parametrize(
    ("name", "a", "b", "expected"),
    [
        ("arith.idiv", -7, 2, -3),
        ("arith.idiv", 7, -2, -3),
        ("arith.irem", -7, 2, -1),
        ("arith.irem", 7, -2, 1),
        ("arith.idiv", 7, 0, None),
        ("arith.max", 3, -4, 3),
        ("arith.min", 3, -4, -4),
        ("arith.xor", 6, 3, 5),
        ("arith.sub", -100, 100, None),  # i8 overflow is not folded
    ],
)
def test_integer_ops_fold_like_c(name, a, b, expected):
    builder = Builder(Block())
    x, y = builder.constant(a, "i8"), builder.constant(b, "i8")
    assert evaluate(builder.create(name, [x, y]), [a, b]) == expected


def test_float_ops_fold_in_the_result_dtype():
    builder = Builder(Block())
    x, y = builder.constant(0.1, "f32"), builder.constant(0.2, "f32")
    total = evaluate(builder.create("arith.add", [x, y]), [0.1, 0.2])
    assert total == float(np.float32(0.1) + np.float32(0.2))
    nan = builder.constant(math.nan, "f32")
    # max and min pass a NaN operand over (IEEE maxNum), as Triton's maximum does; two NaNs give NaN
    assert evaluate(builder.create("arith.max", [x, nan]), [0.1, math.nan]) == float(
        np.float32(0.1)
    )
    assert math.isnan(evaluate(builder.create("arith.min", [nan, nan]), [math.nan, math.nan]))
    assert (
        evaluate(builder.create("arith.div", [x, builder.constant(0.0, "f32")]), [0.1, 0.0]) is None
    )
