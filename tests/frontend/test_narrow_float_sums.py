"""A sum of f16 or bf16 elements is rounded once, as NineToothed's reference (Triton's interpreter)
rounds it, not at each of its additions: a loop adding 4096 f16 ones one after another would stop
at 2048. On every backend, against torch's sum in f64, outputs poisoned first."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor


def row_sums(x, total):
    total = ntl.sum(x, axis=1)  # noqa: F841


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_narrow_float_sum_rounds_once(backend, dtype):
    def arrangement(x, total):
        return x.tile((1, -1)), total.tile((1,))

    whole_rows = {"constexpr": True}
    tensors = (Tensor(2, shape_options=(None, whole_rows)), Tensor(1, dtype=ntl.float32))
    kernel = ninetoothed.make(arrangement, row_sums, tensors, backend=backend)
    x = torch.cat([torch.ones(1, 4096), torch.randn(2, 4096) * 30]).to(dtype)
    total = torch.full((3,), float("nan"))
    kernel(x, total)
    exact = x.double().sum(1).to(dtype).float()  # the exact sum, rounded once
    assert total[0] == 4096
    torch.testing.assert_close(total, exact, atol=0, rtol=2**-8 if dtype == torch.float16 else 0.02)
