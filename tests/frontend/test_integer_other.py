"""A float `other` on an integer tensor (`other=float("-inf")`, as a max-pool writes it) takes the
value a GPU converts it to: toward zero and clamped to the type's range, so -inf is the least
value and the padding never wins a max. TileLang and TVM could not build such a load (an infinite
integer literal); the CUDA C++ form's conversion was undefined."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor


def tile_extremes(x, highest, lowest):
    highest = ntl.max(x)  # noqa: F841
    lowest = ntl.min(x)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("dtype", [torch.int8, torch.int32], ids=str)
def test_infinite_padding_of_integers_is_the_types_extreme(backend, dtype):
    g = torch.Generator().manual_seed(5)
    x = torch.randint(-100, 0, (13,), generator=g).to(dtype)  # every element below 0
    y = torch.randint(1, 100, (13,), generator=g).to(dtype)  # every element above 0
    kernel = ninetoothed.make(
        lambda x, hi, lo: (x.tile((16,)), hi.tile((1,)), lo.tile((1,))),
        tile_extremes,
        (Tensor(1, other=float("-inf")), Tensor(1), Tensor(1)),
        backend=backend,
    )
    highest, lowest = (torch.full((1,), 77, dtype=dtype) for _ in range(2))
    kernel(x, highest, lowest)
    assert highest.item() == x.max().item()
    assert lowest.item() == torch.iinfo(dtype).min  # the padding: 3 elements past the end
    positive = ninetoothed.make(
        lambda x, hi, lo: (x.tile((16,)), hi.tile((1,)), lo.tile((1,))),
        tile_extremes,
        (Tensor(1, other=float("inf")), Tensor(1), Tensor(1)),
        backend=backend,
    )
    positive(y, highest, lowest)
    assert (highest.item(), lowest.item()) == (torch.iinfo(dtype).max, y.min().item())
