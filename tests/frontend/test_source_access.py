"""A tile's source in the application: `x.source[i, j]` gathers, `y.source[i, j] = v` scatters
(masked to the source's bounds), `x.source.stride(d)` with `data_ptr()`. On every backend, on
strided inputs, against torch."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError
from compiler.runtime.bindings import LaunchError


def blocks(input, output):
    shape = (ninetoothed.block_size(), ninetoothed.block_size())
    return input.tile(shape), output.tile(shape)


def gather_flipped(input, output):
    rows = input.source.shape[0] - 1 - input.offsets(0)
    output = input.source[rows[:, None], input.offsets(1)[None, :]]  # noqa: F841


def scatter_flipped(input, output):
    rows = output.source.shape[0] - 1 - output.offsets(0)
    output.source[rows[:, None], output.offsets(1)[None, :]] = input


def through_strides(input, output):
    pointers = (
        input.source.data_ptr()
        + input.offsets(0)[:, None] * input.source.stride(0)
        + input.offsets(1)[None, :] * input.source.stride(1)
    )
    inside = (input.offsets(0)[:, None] < input.source.shape[0]) & (
        input.offsets(1)[None, :] < input.source.shape[1]
    )
    output = ntl.load(pointers, mask=inside, other=0.0) * 2.0  # noqa: F841


def gathered_then_indexed(input, output):
    """A gathered tile is a tile: subscripted, its methods called."""
    rows = input.source.shape[0] - 1 - input.offsets(0)
    first = input.source[rows, 0][:, None]
    flipped = input.source[rows[:, None], input.offsets(1)[None, :]].to(ntl.float32)
    output = flipped - first  # noqa: F841


EXPECTED = {
    gather_flipped: lambda x: x.flip(0),
    gathered_then_indexed: lambda x: x.flip(0) - x.flip(0)[:, :1],
    scatter_flipped: lambda x: x.flip(0),
    through_strides: lambda x: x * 2,
}


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("application", list(EXPECTED), ids=lambda f: f.__name__)
def test_source_access_matches_torch(backend, application):
    kernel = ninetoothed.make(blocks, application, (Tensor(2), Tensor(2)), backend=backend)
    shape = (37, 23)  # ragged against any block size
    input = torch.empty_strided(shape, (50, 2))
    input.copy_(torch.randn(shape))
    output = torch.full(shape, math.nan)
    kernel(input, output)
    torch.testing.assert_close(output, EXPECTED[application](input), rtol=0, atol=0)


def read_then_doubled_in_place(input, output):
    """The gather reads before the scatter that follows it, whatever reads its name after."""
    elements = input.source[input.offsets(0)[:, None], input.offsets(1)[None, :]]
    input.source[input.offsets(0)[:, None], input.offsets(1)[None, :]] = elements * 2
    output = elements + 0.0  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_gathered_tile_holds_what_it_read(backend):
    kernel = ninetoothed.make(
        blocks, read_then_doubled_in_place, (Tensor(2), Tensor(2)), backend=backend
    )
    input = torch.randn(37, 23)
    original, output = input.clone(), torch.full((37, 23), math.nan)
    kernel(input, output)
    assert torch.equal(output, original)
    assert torch.equal(input, original * 2)


def one_index(input, output):
    output = input.source[input.offsets(0)]  # noqa: F841


def test_a_source_takes_one_index_per_dimension():
    kernel = ninetoothed.make(blocks, one_index, (Tensor(2), Tensor(2)))
    with pytest.raises(CompileError, match=r"input.source has 2 dimension\(s\).*source\[i, i\]"):
        kernel(torch.randn(4, 4), torch.randn(4, 4))


def table_and_indices(table, indices, output):
    block = ninetoothed.block_size()
    return table, indices.tile((block,)), output.tile((block,))


def looked_up(table, indices, output):
    output = ntl.load(table.data_ptr() + indices * table.stride(0)) + 1.0  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_parameter_left_as_it_is_has_a_data_pointer(backend):
    """As in NineToothed, `x.data_ptr()` where the arrangement returns `x` itself: a gather."""
    tensors = (Tensor(1), Tensor(1, dtype=ninetoothed.int64), Tensor(1))
    kernel = ninetoothed.make(table_and_indices, looked_up, tensors, backend=backend)
    table = torch.randn(200)[::2]  # strided: the stride is read, not assumed
    indices = torch.randint(0, 100, (37,))
    output = torch.full((37,), math.nan)
    kernel(table, indices, output)
    torch.testing.assert_close(output, table[indices] + 1.0, rtol=0, atol=0)


def arranged_pointer(input, output):
    output = ntl.load(input.data_ptr())  # noqa: F841


def test_an_arranged_parameter_has_no_data_pointer():
    kernel = ninetoothed.make(blocks, arranged_pointer, (Tensor(2), Tensor(2)))
    with pytest.raises(CompileError, match=r"input is arranged.*write input.source.data_ptr\(\)"):
        kernel(torch.randn(4, 4), torch.randn(4, 4))


def values_indices_and_bins(values, indices, bins):
    return values.tile((16,)), indices.tile((16,)), bins


def scatter_added(values, indices, bins):
    ntl.atomic_add(bins.data_ptr() + indices * bins.stride(0), values)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_tensor_written_through_its_pointer_has_no_tiles_to_miss(backend):
    """A histogram: seven programs add into ten bins of an untiled tensor through its data
    pointer; the launch's coverage check counts only tiles a program writes as its own."""
    tensors = (Tensor(1), Tensor(1, dtype=ninetoothed.int64), Tensor(1))
    kernel = ninetoothed.make(values_indices_and_bins, scatter_added, tensors, backend=backend)
    values = torch.randn(100)
    indices = torch.randint(0, 10, (100,))
    bins = torch.zeros(10)
    kernel(values, indices, bins)
    expected = torch.zeros(10).index_add_(0, indices, values)
    torch.testing.assert_close(bins, expected, rtol=1e-5, atol=1e-5)


def sum_into_untiled(values, indices, bins):
    bins = ntl.sum(values, 0)  # noqa: F841


def test_an_untiled_tensor_assigned_per_program_still_needs_a_program_per_element():
    """Assigned as the application's own tile, an untiled tensor is one element per program:
    ten elements and seven programs would leave three unwritten, so the launch refuses."""
    tensors = (Tensor(1), Tensor(1, dtype=ninetoothed.int64), Tensor(1))
    kernel = ninetoothed.make(values_indices_and_bins, sum_into_untiled, tensors)
    with pytest.raises(LaunchError, match="bins has 10 outermost tiles but the launch has 7"):
        kernel(torch.randn(100), torch.zeros(100, dtype=torch.int64), torch.zeros(10))


def rows(input, output, BLOCK=32):
    return input.tile((1, BLOCK)), output.tile((1, BLOCK))


def causal_row_sums(input, output):
    """Each row's elements at or left of the diagonal, plus its row index summed over the tile's
    one row (NineToothed's offsets along a dimension are 1-D: here of one element)."""
    row = input.offsets(0)
    kept = ntl.where(input.offsets(1)[None, :] <= row[:, None], input, 0.0)
    output = kept + ntl.sum(row + ntl.arange(0, 1), 0)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_offsets_along_a_dimension_of_one_element_are_one_dimensional(backend):
    kernel = ninetoothed.make(rows, causal_row_sums, (Tensor(2), Tensor(2)), backend=backend)
    input = torch.randn(37, 23)
    output = torch.full((37, 23), math.nan)
    kernel(input, output)
    expected = input.tril() + torch.arange(37.0)[:, None]
    torch.testing.assert_close(output, expected, rtol=0, atol=0)
