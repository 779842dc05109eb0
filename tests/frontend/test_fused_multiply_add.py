"""`ntl.fma` rounds once, as Triton's: f32 and f64 through each target's fused multiply-add, a
narrower float through f64 (the product exact, the sum harmless to round before the one rounding
back). A multiply then an add rounds twice and misses in the last bit."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

ROWS, COLS = 37, 16


def arrangement(x, y, z, out):
    return tuple(t.tile((4, COLS)) for t in (x, y, z, out))


def application(x, y, z, out):
    out = ntl.fma(x, y, z)  # noqa: F841


def _inputs(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(17)
    x, y = (torch.randn(ROWS, COLS, generator=g).to(dtype) for _ in range(2))
    if dtype == torch.float32:  # z = -round(x * y): the fused result is that rounding's error
        return x, y, -(x * y)
    return x, y, (torch.randn(ROWS, COLS, generator=g) * 3).to(dtype)


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_fma_rounds_once(backend, dtype):
    x, y, z = _inputs(dtype)
    out = torch.full_like(x, float("nan"))
    tensors = tuple(Tensor(2) for _ in range(4))
    ninetoothed.make(arrangement, application, tensors, backend=backend)(x, y, z, out)
    # exact in f64: a product of f32 or f16 values, and (for f32) its rounding error; for f16
    # the sum rounds in f64 harmlessly (Triton's interpreter computes it so)
    expected = (x.double() * y.double() + z.double()).to(dtype)
    assert not torch.equal(expected, x * y + z)  # the inputs tell one rounding from two
    assert torch.equal(out, expected)
