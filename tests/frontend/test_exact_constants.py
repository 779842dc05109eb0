"""Float constants reach every backend's code exactly: values that 7 significant digits would
change (TileLang's C writer prints no more) in f32 and f64, checked bit for bit against torch."""

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor


def arrange(x, out):
    return x.tile((16,)), out.tile((16,))


def affine(x, out):
    out = x * 1.52587890625e-05 + 0.12345678901234  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_constants_are_exact(dtype, backend):
    x = torch.randn(40, dtype=dtype)
    out = torch.full_like(x, float("nan"))
    kernel = ninetoothed.make(
        arrange, affine, (Tensor(1), Tensor(1)), backend=backend, device="cpu"
    )
    kernel(x, out)
    scale, shift = (torch.tensor(v, dtype=dtype) for v in (1.52587890625e-05, 0.12345678901234))
    torch.testing.assert_close(out, x * scale + shift, rtol=0, atol=0)
