"""libdevice's hyperbolic, inverse trigonometric and logarithmic functions on every backend, on f32
values where a textbook formula fails: tiny ones (sinh(1e-30) was 0, asinh(1e-7) 1.19e-7), signed
zeros (the sign was lost), sizes where an intermediate overflows (cosh(89) was inf, acosh(3e38)
inf, log1p(inf) NaN), and C's special cases of atan2. Against torch in f64 rounded to f32: within
4 ulps, zeros with their sign, infinities and NaNs where torch has them."""

import math

import pytest
import torch
from triton.language.extra import libdevice

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor

VALUES = [0.0, -0.0, 1e-30, -1e-30, 1e-40, 1e-7, -1e-7, 1e-3, -1e-3, 0.3, -0.7, 0.99, -1.0, 1.0]
VALUES += [1.0001, 2.0, 5.0, -5.0, 20.5, 89.0, -89.0, 1e5, 3e38, -1e30, math.inf, -math.inf]
VALUES += [math.nan]


def sinh(x, out):
    out = libdevice.sinh(x)  # noqa: F841


def cosh(x, out):
    out = libdevice.cosh(x)  # noqa: F841


def tanh(x, out):
    out = libdevice.tanh(x)  # noqa: F841


def asinh(x, out):
    out = libdevice.asinh(x)  # noqa: F841


def acosh(x, out):
    out = libdevice.acosh(x)  # noqa: F841


def atanh(x, out):
    out = libdevice.atanh(x)  # noqa: F841


def log1p(x, out):
    out = libdevice.log1p(x)  # noqa: F841


def asin(x, out):
    out = libdevice.asin(x)  # noqa: F841


def atan(x, out):
    out = libdevice.atan(x)  # noqa: F841


def atan2(y, x, out):
    out = libdevice.atan2(y, x)  # noqa: F841


UNARY = [sinh, cosh, tanh, asinh, acosh, atanh, log1p, asin, atan]


def arrange(*tensors):
    return tuple(t.tile((32,)) for t in tensors)


def run(application, backend: str, *inputs: torch.Tensor) -> torch.Tensor:
    tensors = tuple(Tensor(1) for _ in range(len(inputs) + 1))
    out = torch.full_like(inputs[0], math.nan)
    ninetoothed.make(arrange, application, tensors, backend=backend)(*inputs, out)
    return out


def assert_within_ulps(got: torch.Tensor, want: torch.Tensor, ulps: int = 4) -> None:
    for g, w, at in zip(got.tolist(), want.tolist(), VALUES + VALUES, strict=False):
        if math.isnan(w):
            assert math.isnan(g), (at, g)
            continue
        if math.isinf(w) or w == 0:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (at, g, w)
            continue
        step = abs(torch.nextafter(torch.tensor(w), torch.tensor(math.inf)).item() - w)
        assert abs(g - w) <= ulps * step, (at, g, w)


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("application", UNARY, ids=lambda f: f.__name__)
def test_unary_functions_keep_their_accuracy_at_the_edges(application, backend):
    x = torch.tensor(VALUES)
    want = getattr(torch, application.__name__)(x.double()).float()
    assert_within_ulps(run(application, backend, x), want)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_atan2_at_the_axes_corners_and_nan(backend):
    """Every pair of signed zeros, ones, infinities and a NaN, exactly as C's atan2 (Python's)."""
    points = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
    pairs = [(y, x) for y in points for x in points]
    y, x = (torch.tensor(list(column)) for column in zip(*pairs, strict=True))
    got = run(atan2, backend, y, x)
    for (b, a), value in zip(pairs, got.tolist(), strict=True):
        want = float(torch.tensor(math.atan2(b, a), dtype=torch.float32))
        if math.isnan(want):
            assert math.isnan(value), (b, a, value)
        else:
            assert value == want and math.copysign(1, value) == math.copysign(1, want), (b, a)
