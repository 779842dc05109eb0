"""bf16 on every backend, against torch bit for bit. Where a target does not compute with bf16
(capability `stored_only_dtypes`: Triton's CPU interpreter adds bf16 values as their raw bits and
truncates to bf16, TileLang's C form has no bf16, TVM's LLVM legalization fails on a bf16 Let),
`ssa.emulate_narrow_floats` holds the values as their bits and computes in f32, rounding each
result to nearest even as torch does. Outputs are poisoned."""

import functools

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from tests.frontend.test_fp8 import encode_inputs

POISON = float("nan")
# Ties to even at bf16's last bit, the largest finites and past them, subnormals.
EDGES = [1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, -(1.0 + 2.0**-8), 3.3895313892515355e38, 3.4e38]
EDGES += [-3.39e38, 1e-40, -1e-41, 2.0**-133, 2.0**-126 * (1 + 2.0**-8)]


def same_bits(got: torch.Tensor, expected: torch.Tensor) -> None:
    """Bit for bit, but any NaN for a NaN: torch's own conversions give 0x7FC0 or 0xFFFF."""
    nan = expected.isnan()
    assert torch.equal(got.isnan(), nan), got[got.isnan() != nan]
    got, expected = got[~nan].view(torch.int16), expected[~nan].view(torch.int16)
    mismatched = (got != expected).nonzero().flatten()[:5].tolist()
    assert not mismatched, [(i, got[i].item(), expected[i].item()) for i in mismatched]


def elementwise(*tensors, block=64):
    return tuple(t.tile((block,)) for t in tensors)


def make(application, *tensors, backend, arrangement=elementwise):
    return ninetoothed.make(arrangement, application, tensors, backend=backend, device="cpu")


def copy(x, out):
    out = x  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_f32_values_round_to_bf16_as_torchs(backend):
    x = torch.cat([encode_inputs(seed=5), torch.tensor(EDGES)])
    out = torch.full(x.shape, POISON, dtype=torch.bfloat16)
    kernel = make(copy, Tensor(1), Tensor(1, dtype=ntl.bfloat16), backend=backend)
    kernel(x, out)
    same_bits(out, x.to(torch.bfloat16))


def mixed(x, y, out, smaller):
    out = x + y * 2 - x / y  # noqa: F841
    smaller = ntl.where(x < y, x, y)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_bf16_math_rounds_each_result_as_torch(backend):
    g = torch.Generator().manual_seed(11)
    x, y = (torch.randn(300, generator=g).bfloat16() * 8 for _ in range(2))
    out, smaller = (torch.full_like(x, POISON) for _ in range(2))
    bf16 = (Tensor(1, dtype=ntl.bfloat16) for _ in range(4))
    make(mixed, *bf16, backend=backend)(x, y, out, smaller)
    # Triton's `/` on bf16 divides in f32; the rest rounds each result to bf16.
    same_bits(out, ((x + y * 2).float() - x.float() / y.float()).bfloat16())
    same_bits(smaller, torch.minimum(x, y))


def rows(x, w, out, *, block):
    return x.tile((1, block)), w.tile((1, block)), out.tile((1, 1))


def row_max_and_sum(x, w, out):
    out = (ntl.max(x, 1) + ntl.sum(w * w, 1))[:, None]  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_bf16_reductions_with_masked_padding(backend):
    """Rows shorter than the tile: the padding loads `other` (-inf, held as its bits) for max.
    A sum of bf16 values accumulates in bf16 where the target computes with it (as Triton's
    `tl.sum` does), in f32 where it does not: within a few of bf16's ulps of torch either way."""
    g = torch.Generator().manual_seed(12)
    x = -torch.rand(7, 50, generator=g).bfloat16() - 1  # all negative: padding with 0 would win
    w = torch.randn(7, 50, generator=g).bfloat16()
    out = torch.full((7, 1), POISON, dtype=torch.bfloat16)
    tensors = (
        Tensor(2, dtype=ntl.bfloat16, other=float("-inf")),
        Tensor(2, dtype=ntl.bfloat16, other=0),
        Tensor(2, dtype=ntl.bfloat16),
    )
    arrangement = functools.partial(rows, block=64)
    make(row_max_and_sum, *tensors, backend=backend, arrangement=arrangement)(x, w, out)
    expected = x.float().amax(1) + (w * w).float().sum(1)
    torch.testing.assert_close(out[:, 0].float(), expected, rtol=2**-5, atol=0)


@pytest.mark.parametrize("backend", ["triton", "tilelang"])
def test_gpu_forms_compute_with_bf16(backend):
    """Only the CPU forms hold bf16 as bits: on a GPU, Triton and TileLang compute with it."""
    bf16 = (Tensor(1, dtype=ntl.bfloat16) for _ in range(4))
    kernel = ninetoothed.make(elementwise, mixed, tuple(bf16), backend=backend, device="cuda")
    source = kernel.compile_declared().source
    assert "bfloat16" in source and "uint16" not in source
