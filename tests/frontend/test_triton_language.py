"""Triton's language used directly in an application (`import triton.language as tl`, libdevice,
names imported from them, `triton.language` through `triton`), and NineToothed's own
`ninetoothed.language` imported beside this compiler's make: read as the ntl names they stand
for, on every backend, against torch."""

import math

import ninetoothed.language as real_ntl
import pytest
import torch
import triton
import triton.language as tl
from triton.language import maximum
from triton.language.extra import libdevice

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError


def arrangement(x, out):
    return x.tile((8,)), out.tile((8,))


def application(x, out):
    y = tl.exp(x.to(tl.float32)) + libdevice.pow(x, 2.0) - tl.math.exp(x)
    out = maximum(y, triton.language.sum(y, 0) * 0.0)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_triton_language_in_an_application(backend):
    kernel = ninetoothed.make(arrangement, application, (Tensor(1), Tensor(1)), backend=backend)
    x = torch.randn(13)
    out = torch.full((13,), math.nan)
    kernel(x, out)
    torch.testing.assert_close(out, torch.clamp(x**2, min=0.0), atol=1e-5, rtol=1e-5)


def with_ninetoothed_language(x, out):
    # NineToothed's module defines none of these: its make only names them in the Triton it writes
    out = real_ntl.sort(real_ntl.exp(x), 0) + real_ntl.libdevice.pow(x, 0.0)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_ninetoothed_language_imported_beside_this_make(backend):
    tensors = (Tensor(1), Tensor(1))
    kernel = ninetoothed.make(arrangement, with_ninetoothed_language, tensors, backend=backend)
    x = torch.randn(8)
    out = torch.full((8,), math.nan)
    kernel(x, out)
    torch.testing.assert_close(out, x.exp().sort().values + 1.0)


def unknown(x, out):
    out = tl.no_such_function(x)  # noqa: F841


def test_a_name_triton_has_and_ntl_lacks_is_refused_at_its_line():
    kernel = ninetoothed.make(arrangement, unknown, (Tensor(1), Tensor(1)))
    with pytest.raises(CompileError, match=r"test_triton_language.py:\d+: .*no_such_function"):
        kernel(torch.randn(4), torch.randn(4))


@triton.jit
def _squared_plus(a, b):
    return a * a + tl.abs(b)


def calls_a_jit_helper(x, out):
    out = _squared_plus(x, -1.0)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_triton_jit_helper_is_inlined(backend):
    """A `@triton.jit` function called from an application is inlined as a Python helper is."""
    kernel = ninetoothed.make(
        arrangement, calls_a_jit_helper, (Tensor(1), Tensor(1)), backend=backend
    )
    x = torch.randn(13)
    out = torch.full((13,), math.nan)
    kernel(x, out)
    torch.testing.assert_close(out, x * x + 1)


def calls_an_object(x, out):
    out = torch.nn.functional.relu(x)  # noqa: F841


def test_a_call_of_something_else_is_refused_with_the_fix():
    kernel = ninetoothed.make(arrangement, calls_an_object, (Tensor(1), Tensor(1)))
    with pytest.raises(CompileError, match=r"cannot call .*\n  called from .*language.py:\d+$"):
        kernel(torch.randn(4), torch.randn(4))


def triton_loops(x, out):
    acc = x
    for _ in tl.static_range(3):
        acc = acc * 2.0
    for i in tl.range(0, 2, num_stages=2):  # keywords are Triton's compiler hints
        acc = acc + i
    out = acc  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_tritons_range_and_static_range_loop(backend):
    kernel = ninetoothed.make(arrangement, triton_loops, (Tensor(1), Tensor(1)), backend=backend)
    x = torch.randn(13)
    out = torch.full((13,), math.nan)
    kernel(x, out)
    torch.testing.assert_close(out, x * 8 + 1)


def hinted(x, out):
    offsets = tl.max_contiguous(tl.multiple_of(x.offsets(), 8), 8)
    loaded = tl.load(x.source.data_ptr() + offsets, mask=offsets < x.source.shape[0])
    stepped = tl.sub(tl.mul(loaded, 3.0), tl.to_tensor(1.0))
    out = tl.add(tl.max_constancy(stepped, 1), x, sanitize_overflow=False)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_hints_and_named_arithmetic(backend):
    """`multiple_of`/`max_contiguous`/`max_constancy` are hints (the value itself), and
    `add`/`sub`/`mul` and `to_tensor` the arithmetic they name, as in Triton."""
    kernel = ninetoothed.make(arrangement, hinted, (Tensor(1), Tensor(1)), backend=backend)
    x = torch.randn(21)
    out = torch.full((21,), math.nan)
    kernel(x, out)
    torch.testing.assert_close(out, x * 4.0 - 1.0)
