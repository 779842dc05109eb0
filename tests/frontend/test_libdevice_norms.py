"""libdevice's norms (`hypot`, `norm3d`, `norm4d`, their reciprocals) on every backend, in f32 and
f64, where the textbook sqrt(x^2 + y^2) fails: components whose squares overflow or underflow,
zeros, and infinities beside NaN (C's hypot(inf, nan) is inf). Against the same formula in
Python's exact arithmetic (`math.hypot`, correctly rounded), within 2 ulps."""

import math

import pytest
import torch
from triton.language.extra import libdevice

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor

SIZES = [0.0, -0.0, 3.0, -4.0, 1e-30, 3e-30, 1e-45, 1e30, -4e30, 1e38, 3e38, 0.1, 7.5]
SIZES += [1e200, 1e-300, math.inf, -math.inf, math.nan]


def hypot(a, b, out):
    out = libdevice.hypot(a, b)  # noqa: F841


def rhypot(a, b, out):
    out = libdevice.rhypot(a, b)  # noqa: F841


def norm3d(a, b, c, out):
    out = libdevice.norm3d(a, b, c)  # noqa: F841


def rnorm4d(a, b, c, d, out):
    out = libdevice.rnorm4d(a, b, c, d)  # noqa: F841


def arrange(*tensors):
    return tuple(t.tile((64,)) for t in tensors)


def exact(components, reciprocal: bool, dtype: torch.dtype) -> float:
    """C's norm of the components as `dtype` has them, rounded once to `dtype`."""
    norm = math.hypot(*components)
    if reciprocal:
        norm = 1 / norm if norm else math.inf
    return torch.tensor(norm, dtype=torch.float64).to(dtype).item()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize(
    "application, arity, reciprocal",
    [(hypot, 2, False), (rhypot, 2, True), (norm3d, 3, False), (rnorm4d, 4, True)],
    ids=["hypot", "rhypot", "norm3d", "rnorm4d"],
)
def test_norms_avoid_overflow_and_follow_c_at_the_edges(
    application, arity, reciprocal, backend, dtype
):
    rows = [(a, b, *SIZES[i % 5 : i % 5 + arity - 2]) for i, a in enumerate(SIZES) for b in SIZES]
    inputs = [torch.tensor(column, dtype=dtype) for column in zip(*rows, strict=True)]
    out = torch.full_like(inputs[0], math.nan)
    tensors = tuple(Tensor(1) for _ in range(arity + 1))
    ninetoothed.make(arrange, application, tensors, backend=backend)(*inputs, out)
    columns = [column.tolist() for column in inputs]  # the components as `dtype` rounded them
    for at, got in enumerate(out.tolist()):
        components = [column[at] for column in columns]
        want = exact(components, reciprocal, dtype)
        if math.isnan(want) or math.isinf(want) or want == 0:
            assert got == want or (math.isnan(got) and math.isnan(want)), (components, got, want)
            continue
        step = abs(torch.tensor(want, dtype=dtype).nextafter(torch.tensor(0.0, dtype=dtype)))
        assert abs(got - want) <= 2 * step.item(), (components, got, want)
