"""`ntl.rand`/`randn`/`randint` on every backend give, for a seed and offsets, exactly the numbers
Triton's own Philox gives (run here in Triton's interpreter as the oracle)."""

import os

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

SIZE, BLOCK = 300, 64  # ragged: the last block is partly masked
SEED = 2**33 + 12345  # wider than 32 bits, so both key words matter


def arrange(x, seed, out):
    return x.tile((BLOCK,)), seed, out.tile((BLOCK,))


def uniform(x, seed, out):
    out = ntl.rand(seed, x.offsets())  # noqa: F841


def draws(x, seed, out):
    offsets = x.offsets()
    out = ntl.rand(seed, offsets) + ntl.randn(seed, offsets) * 10.0 + ntl.randint(seed, offsets)  # noqa: F841


def triton_reference(seed: int) -> torch.Tensor:
    os.environ.setdefault("TRITON_INTERPRET", "1")
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        value = tl.rand(seed, offsets) + tl.randn(seed, offsets) * 10.0
        value += tl.randint(seed, offsets).to(tl.float32)
        tl.store(out_ptr + offsets, value, mask=mask)

    out = torch.empty(SIZE)
    kernel[(triton.cdiv(SIZE, BLOCK),)](out, seed, SIZE, BLOCK=BLOCK)
    return out


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_random_matches_triton(backend):
    kernel = ninetoothed.make(arrange, draws, (Tensor(1), Tensor(0), Tensor(1)), backend=backend)
    out = torch.full((SIZE,), float("nan"))
    kernel(torch.zeros(SIZE), SEED, out)
    torch.testing.assert_close(out, triton_reference(SEED), rtol=1e-5, atol=1e-3)
    again = torch.full((SIZE,), float("nan"))
    kernel(torch.zeros(SIZE), SEED + 1, again)
    assert (again != out).float().mean() > 0.99  # another seed, other numbers


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_uniform_numbers_of_a_flattened_tensor(backend):
    """As dropout draws them: the offsets of a flattened 3-D tensor, a seed below 2^31. Every
    number lies in [0, 1), and their mean is near 1/2."""

    def flattened(x, seed, out):
        block = ninetoothed.block_size()
        return x.flatten().tile((block,)), seed, out.flatten().tile((block,))

    tensors = (Tensor(3), Tensor(0, dtype=ninetoothed.int64), Tensor(3))
    kernel = ninetoothed.make(flattened, uniform, tensors, backend=backend)
    x = torch.zeros(3, 50, 7)
    out = torch.full_like(x, float("nan"))
    kernel(x, 12345, out)
    assert ((out >= 0) & (out < 1)).all()
    assert abs(out.mean().item() - 0.5) < 0.05
