"""Scalar arguments as Python passes them: a `Tensor(0)` given True/False specialises on bool (as
Triton does), given an int on i32, i64 or u64 as its value needs (as Triton does), given a float
on f32; one compiled form per signature, on every
backend, against torch."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.runtime.bindings import LaunchError


def arrangement(x, flag, out):
    return x.tile((8,)), flag, out.tile((8,))


def chosen(x, flag, out):
    out = ntl.where(flag, x, -x)  # noqa: F841


def branched(x, flag, out):
    if flag:
        out = x * 2.0  # noqa: F841
    else:
        out = x - 1.0  # noqa: F841


EXPECTED = {chosen: lambda x, f: x if f else -x, branched: lambda x, f: x * 2 if f else x - 1}


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("application", list(EXPECTED), ids=lambda f: f.__name__)
def test_bools_and_ints_as_flags(backend, application):
    kernel = ninetoothed.make(
        arrangement, application, (Tensor(1), Tensor(0), Tensor(1)), backend=backend
    )
    x = torch.randn(13)
    for flag in (True, False, 3, 0):
        out = torch.full((13,), math.nan)
        kernel(x, flag, out)
        torch.testing.assert_close(out, EXPECTED[application](x, flag), rtol=0, atol=0)
    flag_types = {specs[1].dtype for specs, *_ in kernel._artifacts}
    assert flag_types == {"i1", "i32"}  # one compiled form per signature


def tiles_every_parameter(*tensors):
    return tuple(t.tile((8,)) for t in tensors)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_scalar_tiled_like_the_tensors_stays_a_scalar(backend):
    """An arrangement that tiles every parameter alike, the scalar included: NineToothed ignores
    the tile sizes given to a 0-dimensional tensor, and so does the compiler."""
    kernel = ninetoothed.make(
        tiles_every_parameter, branched, (Tensor(1), Tensor(0), Tensor(1)), backend=backend
    )
    x = torch.randn(13)
    for flag in (True, False):
        out = torch.full((13,), math.nan)
        kernel(x, flag, out)
        torch.testing.assert_close(out, EXPECTED[branched](x, flag), rtol=0, atol=0)


def arrange_affine(x, scale, shift, out):
    return x.tile((8,)), scale, shift, out.tile((8,))


def affine(x, scale, shift, out):
    out = x * scale + shift  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_an_int_past_its_dtype_is_refused_on_every_call(backend):
    """An int argument is i32, i64 or u64 as its value needs; past those it would reach the
    kernel wrapped (2^64 + 5 as 5). Refused on a first call and on a planned signature's later
    calls; the plans still run after it."""
    tensors = (Tensor(1), Tensor(0), Tensor(0), Tensor(1))
    handle = ninetoothed.make(arrange_affine, affine, tensors, backend=backend)
    x = torch.randn(16)
    refused = {-(2**63) - 1: "i64", 2**64 + 5: "u64", 2**64: "u64"}
    for shift in (3, 2**40, 2**63, *refused, -(2**63), 7):
        out = torch.full_like(x, float("nan"))
        if shift not in refused:
            handle(x, 2.0, shift, out)
            assert torch.equal(out, x * 2.0 + float(shift)), shift
        else:
            with pytest.raises(LaunchError, match=rf"'shift' is {shift}, outside {refused[shift]}"):
                handle(x, 2.0, shift, out)
            assert out.isnan().all()


def scaled(i, n, out):
    out = i * n  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_an_int_argument_computes_in_the_width_its_value_takes(backend):
    """As Triton specialises an int argument: one that fits 32 bits is i32, so an i32 tile times
    it wraps in 32 bits; one past 32 bits is i64, and the product is 64-bit."""
    tensors = (Tensor(1, dtype=ninetoothed.int32), Tensor(0), Tensor(1, dtype=ninetoothed.int64))
    handle = ninetoothed.make(arrangement, scaled, tensors, backend=backend)
    i = torch.tensor([-(2**31), 2**31 - 1, 10**9, 7, 0, -1, 5, 3], dtype=torch.int32)
    for n in (-3, 2**33 + 5):
        out = torch.full((8,), -99)
        handle(i, n, out)
        wide = i.long() * n
        assert torch.equal(out, wide if n > 2**31 else wide.int().long()), n


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_float_argument_is_rounded_to_f32(backend):
    """A float argument is f32, as Triton's launcher passes it: 1e39 is inf, 1e-46 is 0."""
    tensors = (Tensor(1), Tensor(0), Tensor(0), Tensor(1))
    handle = ninetoothed.make(arrange_affine, affine, tensors, backend=backend)
    x = torch.tensor([0.25, -0.5, 1.0, 3e-39, 2.0, -1.0, 0.5, 4.0])
    for scale, rounded in ((1e39, math.inf), (1e-46, 0.0), (0.1, 0.1)):
        out = torch.full_like(x, float("nan"))
        handle(x, scale, 0, out)
        assert torch.equal(out, x * torch.tensor(rounded, dtype=torch.float32)), scale
