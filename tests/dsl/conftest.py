"""The oracle: build one arrangement with NineToothed and with `compiler.dsl`, compare offsets."""

import ninetoothed
import numpy as np
import pytest

from compiler import dsl
from compiler.dsl.evaluate import evaluate


def assert_matches_ninetoothed(recipe):
    """`recipe(lib)` returns (arranged tensors, subs) built with `lib.Tensor` / `lib.Symbol`."""
    expected_tensors, expected_subs = recipe(ninetoothed)
    actual_tensors, actual_subs = recipe(dsl)
    assert len(actual_tensors) == len(expected_tensors)
    for position, (actual, expected) in enumerate(
        zip(actual_tensors, expected_tensors, strict=True)
    ):
        wanted = expected.eval(expected_subs)
        got = evaluate(actual, actual_subs)
        assert got.shape == wanted.shape, f"tensor {position}: {got.shape} != {wanted.shape}"
        np.testing.assert_array_equal(got, wanted, err_msg=f"tensor {position}")


@pytest.fixture
def matches_ninetoothed():
    return assert_matches_ninetoothed
