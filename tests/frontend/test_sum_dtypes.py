"""`sum` and `cumsum` compute in Triton's type: the `dtype` given, else integers narrower than 32
bits widened to 32 with their signedness, a bool counting as unsigned (so a count of a mask minus
more than it wraps, as in Triton). On every backend, against torch, outputs poisoned."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor


def rows(x, y, BLOCK=4):
    return x.tile((BLOCK, 64)), y.tile((BLOCK, 64))


def sums_in_given_types(x, y):
    total = ntl.sum(x, axis=1, dtype=ntl.float32)[:, None]
    y = ntl.cumsum(x, axis=1, dtype=ntl.float32) - total  # noqa: F841


def count_below_forty(x, y):
    y = (ntl.sum(x > 0, axis=1) - 40)[:, None] + x * 0  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_sum_and_cumsum_take_a_dtype(backend):
    kernel = ninetoothed.make(rows, sums_in_given_types, (Tensor(2), Tensor(2)), backend=backend)
    x = torch.randn(10, 64).half()
    y = torch.full((10, 64), math.nan)
    kernel(x, y)
    wide = x.float()
    expected = wide.cumsum(1) - wide.sum(1, keepdim=True)
    torch.testing.assert_close(y, expected, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_count_of_bools_is_unsigned(backend):
    kernel = ninetoothed.make(rows, count_below_forty, (Tensor(2), Tensor(2)), backend=backend)
    x = torch.randint(-5, 5, (10, 64), dtype=torch.int32)
    y = torch.full((10, 64), math.nan, dtype=torch.float64)
    kernel(x, y)
    count = (x > 0).sum(1, keepdim=True).double()
    assert torch.equal(y, ((count - 40) % 2**32).expand(10, 64))
