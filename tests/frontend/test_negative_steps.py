"""Slices with negative steps in the arrangement (`x[::-1]`, `x[::-2, ::-1]`), as NineToothed
takes them: the sliced size is a grid's factor, so it divides by the step's magnitude (the IR's
`//` truncates, NineToothed's floors; on sizes >= 0 they agree). On every backend, against
torch, outputs poisoned."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor


def copy(x, y):
    y = x  # noqa: F841


def reversed_rows(x, y, BLOCK=8):
    return x[::-1].tile((BLOCK,)), y.tile((BLOCK,))


def every_other_row_reversed(x, y, B=4):
    return x[::-2, ::-1].tile((B, B)), y[1::2].tile((B, B))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_reversed_tensor_is_read_back_to_front(backend):
    kernel = ninetoothed.make(reversed_rows, copy, (Tensor(1), Tensor(1)), backend=backend)
    x = torch.randn(29)
    y = torch.full_like(x, math.nan)
    kernel(x, y)
    assert torch.equal(y, x.flip(0))


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("rows", [11, 12])
def test_negative_steps_on_two_dims(backend, rows):
    tensors = (Tensor(2), Tensor(2))
    kernel = ninetoothed.make(every_other_row_reversed, copy, tensors, backend=backend)
    x = torch.randn(rows, 7)
    y = torch.full((2 * len(range(rows - 1, -1, -2)), 7), math.nan)
    kernel(x, y)
    assert torch.equal(y[1::2], x.flip(0)[::2].flip(1))
    assert y[::2].isnan().all()
