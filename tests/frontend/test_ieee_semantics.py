"""IEEE special values come out of every backend as Triton gives them: `maximum`, `minimum`,
`clamp` and the max/min reductions pass a NaN over (maxNum) unless `PropagateNan.ALL` asks for it;
`x * 0.0`, `x + 0.0` and `0.0 - x` keep NaN, infinities and the sign of zero (TVM's simplifier
would fold them); gathers and flips keep -0.0."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0, -1.5, 2.0, 1e-40]
BACKENDS = sorted(TARGETS)


def _row(seed: int) -> torch.Tensor:
    """16 values: the specials and random ones, shuffled; a whole row of NaN in the last tile."""
    g = torch.Generator().manual_seed(seed)
    row = torch.cat([torch.tensor(SPECIALS), torch.randn(8, generator=g)])
    return row[torch.randperm(16, generator=g)]


def _inputs() -> torch.Tensor:
    return torch.stack([_row(seed) for seed in range(5)] + [torch.full((16,), math.nan)])


def _run(application, backend: str, x: torch.Tensor, columns: int = 16) -> torch.Tensor:
    out = torch.full((x.shape[0], columns), 12345.0, dtype=x.dtype)
    kernel = ninetoothed.make(
        lambda x, out: (x.tile((1, 16)), out.tile((1, -1))),
        application,
        (Tensor(2), Tensor(2, shape_options={"constexpr": True})),
        backend=backend,
        device="cpu",
    )
    kernel(x, out)
    return out


def _same(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Equal bit for bit where not NaN (so -0.0 differs from 0.0), NaN where expected."""
    assert torch.equal(actual.isnan(), expected.isnan()), (actual, expected)
    numbers = ~expected.isnan()
    bits = {torch.float32: torch.int32, torch.float16: torch.int16}[expected.dtype]
    assert torch.equal(actual[numbers].view(bits), expected[numbers].view(bits))


def extremes(x, out):
    out = ntl.maximum(x, 0.5) + ntl.minimum(-0.5, x) * 10.0 + ntl.clamp(x, -1.0, 1.0) * 100.0  # noqa: F841


def propagating(x, out):
    everywhere = ntl.PropagateNan.ALL
    high = ntl.maximum(x, 0.5, propagate_nan=everywhere)
    low = ntl.minimum(-0.5, x, propagate_nan=everywhere)
    out = high + low * 10.0 + ntl.clamp(x, -1.0, 1.0, propagate_nan=everywhere) * 100.0  # noqa: F841


def reductions(x, out):
    out = ntl.max(x, 1)[:, None] + ntl.min(x, 1)[:, None] * 10.0 + x * 0.0 + 1.0  # noqa: F841


def zeros(x, out):
    product, total, difference = x * 0.0, x + 0.0, 0.0 - x
    pairs = ntl.join(ntl.join(product, total), ntl.join(difference, -x))
    out = ntl.reshape(pairs, (1, 64))  # noqa: F841


def flipped(x, out):
    out = ntl.flip(x, 1)  # noqa: F841


def _maxnum(a: torch.Tensor, b: float) -> torch.Tensor:
    return torch.fmax(a, torch.tensor(b))


def _minnum(a: torch.Tensor, b: float) -> torch.Tensor:
    return torch.fmin(a, torch.tensor(b))


@pytest.mark.parametrize("backend", BACKENDS)
def test_maximum_minimum_and_clamp_pass_nan_over(backend):
    x = _inputs()
    clamped = _minnum(_maxnum(x, -1.0), 1.0)
    expected = _maxnum(x, 0.5) + _minnum(x, -0.5) * 10 + clamped * 100
    torch.testing.assert_close(_run(extremes, backend, x), expected, equal_nan=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_propagate_nan_all_gives_nan(backend):
    x = _inputs()
    expected = torch.maximum(x, torch.tensor(0.5)) + torch.minimum(x, torch.tensor(-0.5)) * 10
    expected = expected + x.clamp(-1.0, 1.0) * 100
    torch.testing.assert_close(_run(propagating, backend, x), expected, equal_nan=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_and_min_reductions_pass_nan_over(backend):
    x = _inputs()
    x = torch.where(x.isinf(), 3.0, x)  # an infinity of each sign would make every row NaN
    highest = torch.where(x.isnan(), -math.inf, x).amax(1, keepdim=True)
    lowest = torch.where(x.isnan(), math.inf, x).amin(1, keepdim=True)
    rows = torch.where(x.isnan().all(1, keepdim=True), math.nan, highest + lowest * 10)
    expected = rows + x * 0.0 + 1.0
    torch.testing.assert_close(_run(reductions, backend, x), expected, equal_nan=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_arithmetic_with_zero_keeps_special_values(backend, dtype):
    """In f16 too: TileLang's folder took `x * 0.0` for 0 where the zero was an f16 Let."""
    x = _inputs().to(dtype)
    pairs = torch.stack([torch.stack([x * 0.0, x + 0.0], -1), torch.stack([0.0 - x, -x], -1)], -1)
    _same(_run(zeros, backend, x, columns=64), pairs.reshape(x.shape[0], 64))


@pytest.mark.parametrize("backend", BACKENDS)
def test_flip_keeps_the_sign_of_zero(backend):
    x = _inputs()
    _same(_run(flipped, backend, x), x.flip(1))


def absolute(x, out):
    out = ntl.abs(x)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_abs_clears_the_sign_of_both_zeros(backend):
    """TileLang's `T.max(x, -x)` gave -0.0 for +0.0 (C's `a > b ? a : b` takes b on a tie)."""
    x = _inputs()
    _same(_run(absolute, backend, x), x.abs())
