"""Tensors the arrangement does not tile (`x`, `x[slices]`): as in NineToothed, each is its own
outermost level with a one-element tile, so program i takes element i; mixed with a tiled tensor,
program i takes its tile and element i. On every backend, against torch."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError


def sliced(input, output, input_slices, output_slices):
    return input[input_slices], output[output_slices]


def copy(input, output):
    output = input  # noqa: F841


def pad_like(shape, pads):
    """Slices that place a (cropped) input into a (padded) output, as torch's F.pad does."""
    inner, outer = [], []
    for size, (left, right) in zip(shape, pads, strict=True):
        inner.append(slice(max(-left, 0), size - max(-right, 0)))
        outer.append(slice(max(left, 0), max(left, 0) + size - max(-left, 0) - max(-right, 0)))
    return tuple(inner), tuple(outer)


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize(
    "shape, pads",
    [((5, 7), ((1, 2), (-1, 3))), ((3, 4, 6), ((0, 1), (2, -1), (-2, 0))), ((9,), ((3, 4),))],
)
def test_sliced_copy_pads_like_torch(backend, shape, pads):
    inner, outer = pad_like(shape, pads)
    ndim = len(shape)
    kernel = ninetoothed.make(
        sliced, copy, (Tensor(ndim), Tensor(ndim), inner, outer), backend=backend
    )
    input = torch.randn(shape)
    flat_pads = [p for pair in reversed(pads) for p in pair]
    expected = torch.nn.functional.pad(input, flat_pads, value=-3.0)
    output = torch.full(expected.shape, -3.0)
    kernel(input, output)
    torch.testing.assert_close(output, expected, rtol=0, atol=0)


def tiled_and_untiled(x, y, out):
    return x.tile((4,)), y, out.tile((4,))


def scale_tile(x, y, out):
    out = x * y  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_an_untiled_tensor_beside_a_tiled_one_gives_each_program_one_element(backend):
    kernel = ninetoothed.make(
        tiled_and_untiled, scale_tile, (Tensor(1), Tensor(1), Tensor(1)), backend=backend
    )
    n = 10  # three programs, the last one partial
    x, y = torch.randn(n), torch.randn(math.ceil(n / 4))
    out = torch.full((n,), math.nan)
    kernel(x, y, out)
    torch.testing.assert_close(out, x * y.repeat_interleave(4)[:n])


def indexed(x, y):
    y = x[0]  # noqa: F841


def test_indexing_an_untiled_tensor_is_refused_at_its_line():
    with pytest.raises(CompileError, match=r"test_untiled.py:\d+: x is not tiled.*\.tile\("):
        kernel = ninetoothed.make(lambda x, y: (x, y), indexed, (Tensor(1), Tensor(1)))
        kernel(torch.randn(3), torch.randn(3))
