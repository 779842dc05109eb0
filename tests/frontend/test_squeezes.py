"""A squeezed dimension has one element: where the arrangement squeezes one whose size the launch
decides (the row tiles of `x.tile((8, 16)).tile((1, -1)).squeeze(0)`), a launch where it has more
is refused, as a size known at compile time is; NineToothed reads its first index alone there.
One of no elements (an empty input) leaves nothing out.
On every backend, against torch, outputs poisoned first."""

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError
from compiler.runtime.bindings import LaunchError


def row_blocks(x, out):
    """Each program's row tile, its column tiles one level down: right while one row tile."""
    arranged = []
    for tensor in (x, out):
        tiles = tensor.tile((8, 16)).tile((1, -1)).squeeze(0)
        tiles.dtype = tiles.dtype.squeeze(0)
        arranged.append(tiles)
    return tuple(arranged)


def doubled(x, out):
    for j in range(x.shape[0]):
        out[j] = x[j] * 2


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_squeezed_dimension_of_more_than_one_element_is_refused_at_launch(backend):
    kernel = ninetoothed.make(row_blocks, doubled, (Tensor(2), Tensor(2)), backend=backend)
    x = torch.randn(8, 53)  # one row tile
    out = torch.full_like(x, float("nan"))
    kernel(x, out)
    torch.testing.assert_close(out, x * 2)
    empty = torch.empty(0, 53)  # none: nothing is left out
    kernel(empty, torch.empty_like(empty))
    x = torch.randn(19, 53)  # three: the second and third would be left out
    with pytest.raises(LaunchError, match=r"x's arrangement squeezes a dimension that has 3 elem"):
        kernel(x, torch.empty_like(x))


def test_a_squeezed_dimension_known_at_compile_time_is_refused_at_compile_time():
    constant_rows = {"constexpr": True}
    tensors = (Tensor(2, shape_options=constant_rows), Tensor(2, shape_options=constant_rows))
    kernel = ninetoothed.make(row_blocks, doubled, tensors)
    x = torch.randn(19, 53)
    with pytest.raises(CompileError, match="x's arrangement squeezes a dimension of 3 elements"):
        kernel(x, torch.empty_like(x))
