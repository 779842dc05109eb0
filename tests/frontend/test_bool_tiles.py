"""Tiles of bools in reductions, comparisons and extremes, as Triton computes them: the max of
bools is their or, the min their and, argmax the first true. On every backend, against torch,
outputs poisoned (TVM's LLVM lowering rejected bool maxima and bool comparisons)."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor


def rows(a, b, out, BLOCK=4):
    return a.tile((BLOCK, 32)), b.tile((BLOCK, 32)), out.tile((BLOCK, 32))


def bool_ops(a, b, out):
    across = ntl.max(a, axis=1)[:, None] * 1 + ntl.min(b, axis=1)[:, None] * 2
    first = ntl.argmax(a, axis=1)[:, None] * 4
    out = across + first + ntl.maximum(a, b) * 256 + (a == b) * 512 + (a < b) * 1024  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_bool_tiles_reduce_and_compare_as_in_triton(backend):
    kernel = ninetoothed.make(rows, bool_ops, (Tensor(2), Tensor(2), Tensor(2)), backend=backend)
    a, b = torch.rand(10, 32) > 0.7, torch.rand(10, 32) > 0.05
    a[3] = False  # a row with no true: its max is false, its argmax 0
    b[5] = True  # a row all true: its min is true
    out = torch.full((10, 32), -1, dtype=torch.int32)
    kernel(a, b, out)
    i, j = a.int(), b.int()
    across = i.amax(1, keepdim=True) + j.amin(1, keepdim=True) * 2
    first = i.argmax(1, keepdim=True).int() * 4
    expected = across + first + (a | b).int() * 256 + (a == b).int() * 512 + (~a & b).int() * 1024
    assert torch.equal(out, expected.int())


def bool_arithmetic(a, b, out):
    out = (a + b) * 1 + (a - b) * 2 + (a * b) * 4 + (-a) * 8 + (a + b + b) * 16  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_bool_arithmetic_wraps_in_one_bit_as_in_triton(backend):
    """Bools are 1-bit integers: a sum or difference wraps (True + True is False), a product is
    their and, a negation itself."""
    kernel = ninetoothed.make(
        rows, bool_arithmetic, (Tensor(2), Tensor(2), Tensor(2)), backend=backend
    )
    a, b = torch.rand(10, 32) > 0.5, torch.rand(10, 32) > 0.5
    out = torch.full((10, 32), -1, dtype=torch.int32)
    kernel(a, b, out)
    odd = (a ^ b).int()
    expected = odd * 3 + (a & b).int() * 4 + a.int() * 8 + a.int() * 16
    assert torch.equal(out, expected)
