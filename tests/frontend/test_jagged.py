"""Jagged tensors (`Tensor(ndim, jagged_dim=1)`), passed as torch nested tensors with the jagged
layout: each sequence reads and writes only its own rows, on every backend."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError


def arrangement(x, out):
    block = ninetoothed.block_size()
    return x.tile((1, block, -1)), out.tile((1, block, -1))


def doubled_plus_row_sum(x, out):
    out = x * 2.0 + ntl.sum(x, 2)[:, :, None]  # noqa: F841


def jagged():
    return Tensor(3, jagged_dim=1, shape_options=(None, None, {"constexpr": True}))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_each_sequence_is_its_own(backend):
    kernel = ninetoothed.make(
        arrangement, doubled_plus_row_sum, (jagged(), jagged()), backend=backend
    )
    # one longer than a block, one of a single row; then others, on the same handle: a call
    # with offsets (data) is planned from its own, never by a plan made for other offsets
    for lengths in ((3, 70, 1, 33), (5, 2, 40, 1)):
        sequences = [torch.randn(n, 4) for n in lengths]
        x = torch.nested.nested_tensor(sequences, layout=torch.jagged)
        out = torch.nested.nested_tensor(
            [torch.full((n, 4), math.nan) for n in lengths], layout=torch.jagged
        )
        kernel(x, out)
        for got, sequence in zip(out.unbind(), sequences, strict=True):
            torch.testing.assert_close(got, sequence * 2 + sequence.sum(1, keepdim=True))
    assert not kernel._plans


def test_what_is_not_jagged_is_refused():
    with pytest.raises(ValueError, match="write a jagged_dim from 1 to 2"):
        Tensor(3, jagged_dim=3)
    with pytest.raises(ValueError, match="write a jagged_dim from 1 to 1"):
        Tensor(2, jagged_dim=0)
    kernel = ninetoothed.make(arrangement, doubled_plus_row_sum, (jagged(), jagged()))
    dense = torch.randn(2, 5, 4)
    with pytest.raises(CompileError, match="layout=torch.jagged"):
        kernel(dense, dense.clone())
    plain = ninetoothed.make(arrangement, doubled_plus_row_sum, (Tensor(3), Tensor(3)))
    nested = torch.nested.nested_tensor([torch.randn(2, 4)], layout=torch.jagged)
    with pytest.raises(CompileError, match="is not jagged"):
        plain(nested, nested)


def padded(x, out):
    return x.tile((1, 2, 8)), out.tile((1, 2, 8))


def copied(x, out):
    out = x  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("jagged_dim", [1, 2])
def test_to_padded_on_either_ragged_dimension(backend, jagged_dim):
    """Positions past a sequence's end read the tensor's `other`: torch's to_padded_tensor."""
    source = Tensor(3, jagged_dim=jagged_dim, other=-1.0)
    kernel = ninetoothed.make(padded, copied, (source, Tensor(3)), backend=backend)
    lengths = (5, 19, 1)
    parts = [torch.randn(*((n, 3) if jagged_dim == 1 else (3, n))) for n in lengths]
    x = torch.nested.nested_tensor(parts, layout=torch.jagged)
    expected = torch.nested.to_padded_tensor(x, -1.0)
    out = torch.full(expected.shape, math.nan)
    kernel(x, out)
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
