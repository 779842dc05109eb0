"""A `functools.partial` of an application is one, as NineToothed takes it: what the partial binds
(by keyword, by position, through nested partials) is a constant of the program, and the
parameters left pair with the arrangement's tensors."""

import functools

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

BACKENDS = sorted(TARGETS)


def arrangement(x, y, BLOCK=16):
    return x.tile((BLOCK,)), y.tile((BLOCK,))


def powered(scale, x, y, power, shift=0.0):
    y = ntl.exp(ntl.log(ntl.abs(x) + 1.0) * power) * scale + shift  # noqa: F841


def _run(application, backend):
    x = torch.randn(70)
    y = torch.full_like(x, float("nan"))
    handle = ninetoothed.make(
        arrangement, application, (Tensor(1), Tensor(1)), backend=backend, device="cpu"
    )
    handle(x, y)
    return x, y, handle


@pytest.mark.parametrize("backend", BACKENDS)
def test_bound_arguments_are_constants_of_the_program(backend):
    inner = functools.partial(powered, 2.0, shift=1.0)
    x, y, handle = _run(functools.partial(inner, power=1.5), backend)
    torch.testing.assert_close(y, torch.exp(torch.log(x.abs() + 1) * 1.5) * 2.0 + 1.0)
    assert handle.kernel_name == "powered"


def test_an_outer_partial_overrides_an_inner_one():
    inner = functools.partial(powered, 1.0, power=3.0, shift=0.0)
    application = functools.partial(inner, power=0.5)
    x, y, _ = _run(application, "triton")
    torch.testing.assert_close(y, torch.exp(torch.log(x.abs() + 1) * 0.5))
