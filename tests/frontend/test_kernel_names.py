"""A kernel takes its application's name, as in NineToothed, where the backend's language lets it:
an application named like a C type or library function (`double`, `main`) runs on every backend
under that name with `_kernel` added. A name given with `kernel_name=` is refused where reserved
(`tests/backends/test_cuda_launcher.py`)."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor


def arrangement(x, y, BLOCK=16):
    return x.tile((BLOCK,)), y.tile((BLOCK,))


def double(x, y):
    y = x * 2  # noqa: F841


def main(x, y):
    y = x - 1  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize(
    "application, expected", [(double, lambda x: x * 2), (main, lambda x: x - 1)]
)
def test_an_application_named_as_c_reserves_runs(backend, application, expected):
    kernel = ninetoothed.make(arrangement, application, (Tensor(1), Tensor(1)), backend=backend)
    x = torch.randn(37)
    y = torch.full_like(x, math.nan)
    kernel(x, y)
    torch.testing.assert_close(y, expected(x))
    assert kernel.kernel_name in (application.__name__, f"{application.__name__}_kernel")
    if backend == "cuda":  # C++ reserves both
        assert kernel.kernel_name == f"{application.__name__}_kernel"
    if backend == "triton":  # Python neither
        assert kernel.kernel_name == application.__name__
