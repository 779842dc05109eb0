"""Index width per launch. A backend that computes offsets in 32 bits runs a launch whose offsets
do not fit in its 64-bit form (lowered and cached apart), or, without one (a target record stubbed
without it here: every backend has one), refuses it before anything runs, naming the tensor and
the backends that can. CUDA C++ and TVM add 1 to every element of an int8 tensor of 2^31 + 4,099
elements (2.2 GB) in their 64-bit forms; Triton's and TileLang's forms are checked with a stubbed
width, as Triton's interpreter would take an hour on 2^31 elements. Refused tensors are allocated
and never touched."""

import dataclasses

import pytest
import torch
from conftest import load_ir

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS, lower_unified_ssa_artifact, registry
from compiler.dsl import Tensor
from compiler.errors import CompileError
from compiler.runtime import dispatch
from compiler.runtime.bindings import LaunchError
from compiler.runtime.index_width import fitting

LARGE = 2**31 + 4099
WIDENING = sorted(n for n, t in TARGETS.items() if t.widened() not in (None, t))


@pytest.fixture
def without_wide_form(monkeypatch):
    """`narrow(backend)`: that backend's record stubbed without its 64-bit form."""

    def narrow(backend: str) -> list[str]:
        target = dataclasses.replace(TARGETS[backend], wide_index={})
        monkeypatch.setitem(registry.DEVICE_TARGETS, (backend, "cpu"), target)
        return sorted(set(TARGETS) - {backend})  # the backends a refusal names

    return narrow


def arrange(x, out):
    return x.tile((1024,)), out.tile((1024,))


def add_one(x, out):
    out = x + 1  # noqa: F841


def kernel(backend: str):
    return ninetoothed.make(arrange, add_one, (Tensor(1), Tensor(1)), backend=backend, device="cpu")


def test_every_backend_has_a_64_bit_form():
    assert WIDENING == sorted(TARGETS)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_an_index_constant_past_the_width_takes_the_wide_form(backend, without_wide_form):
    """(i + 2^33) // 2^33 is 1 in 64 bits; 2^33 in 32 bits would be 0 and divide by zero."""
    ir = load_ir("big_constant")
    artifact = lower_unified_ssa_artifact(ir, backend)
    assert artifact.index_bits == 64
    x, out = torch.randn(200), torch.full((200,), float("nan"))
    dispatch.launch(artifact, {"x": x, "out": out, "n": 200})
    assert torch.equal(out, x)
    without_wide_form(backend)
    with pytest.raises(CompileError, match=r"index constant 8589934592 does not fit"):
        lower_unified_ssa_artifact(ir, backend)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_the_wide_form_of_a_big_constant_is_lowered_once(backend):
    """No pass reads the index width, so the kernel lowered for the narrow form is emitted in the
    wide one: the same IR and source as lowering for the wide form from the start."""
    ir = load_ir("big_constant")
    found, asked = (
        lower_unified_ssa_artifact(ir, backend),
        lower_unified_ssa_artifact(ir, backend, index_bits=64),
    )
    assert (found.source, found.ssa, found.index_bits) == (asked.source, asked.ssa, 64)
    assert [e["ir"] for e in found.trace] == [e["ir"] for e in asked.trace]


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_backend_without_a_wide_form_refuses_offsets_past_its_width(backend, without_wide_form):
    capable = without_wide_form(backend)
    x = torch.empty(LARGE, dtype=torch.int8)
    with pytest.raises(LaunchError, match=r"indexes in 32 bits, and x .* past 2147483647") as info:
        kernel(backend)(x, torch.empty_like(x))
    assert f"in 64 bits ({', '.join(capable)})" in str(info.value)


def test_strides_count_as_well_as_sizes(without_wide_form):
    """A small view whose elements lie far apart reaches as far as its strides take it."""
    without_wide_form("tilelang")
    x = torch.empty(LARGE, dtype=torch.int8).as_strided((3,), (2**30,))
    with pytest.raises(LaunchError, match="strides"):
        kernel("tilelang")(x, torch.empty(3, dtype=torch.int8))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_offsets_inside_the_width_run_in_the_usual_form(backend):
    x = torch.randint(-100, 100, (5000,), dtype=torch.int8)
    out = torch.full_like(x, 77)
    handle = kernel(backend)
    handle(x, out)
    assert torch.equal(out, x + 1)
    assert fitting(handle.last, handle.bindings(x, out)) is handle.last


@pytest.mark.parametrize("backend", WIDENING)
def test_the_wide_form_runs_where_offsets_do_not_fit(backend):
    """The width stubbed to 12 bits: 5,000 elements do not fit, so the 64-bit form runs."""
    x = torch.randint(-100, 100, (5000,), dtype=torch.int8)
    out = torch.full_like(x, 77)
    handle = kernel(backend)
    narrow = dataclasses.replace(handle.compile(x, out), index_bits=12)
    bindings = handle.bindings(x, out)
    wide = fitting(narrow, bindings)
    assert wide.index_bits == 64 and TARGETS[backend].widened().dtype("index") in wide.source
    dispatch.launch(narrow, bindings)
    assert torch.equal(out, x + 1)


@pytest.mark.parametrize("backend", ["cuda", "tvm"])
def test_past_two_to_the_31_elements(backend):
    x = torch.empty(LARGE, dtype=torch.int8)
    x.fill_(3)
    marks = {0: 5, 2**31 - 1: -9, 2**31: 17, 2**31 + 1: -128, LARGE - 1: 126}
    for at, value in marks.items():
        x[at] = value
    out = torch.empty_like(x)
    out.fill_(55)  # poisoned
    kernel(backend)(x, out)
    for at, value in marks.items():
        assert out[at].item() == value + 1, at
    for start in range(0, LARGE, 2**28):  # the rest, in pieces (one comparison of 2 GB is 2 GB)
        piece = slice(start, min(start + 2**28, LARGE))
        assert torch.equal(out[piece], x[piece] + 1), start


def test_a_zero_dimensional_tensor_fits():
    """Its reach is its one element (ntops's select_copy writes one)."""

    def arrange_scalar(x, out):
        x, out = x.tile((1,)), out.unsqueeze(0).tile((1,))
        x.dtype, out.dtype = x.dtype.squeeze(0), out.dtype.squeeze(0)
        return x, out

    def copy_scalar(x, out):
        out = x  # noqa: F841

    x, out = torch.tensor([3.5]), torch.tensor(float("nan"))
    for backend in sorted(TARGETS):
        ninetoothed.make(
            arrange_scalar, copy_scalar, (Tensor(1), Tensor(0)), backend=backend, device="cpu"
        )(x, out)
        assert out.item() == 3.5, backend
        out.fill_(float("nan"))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_an_index_argument_past_the_width_takes_the_wide_form(backend, without_wide_form):
    """A scalar the kernel indexes with counts as much as a tensor's reach (checked, not run)."""
    artifact = lower_unified_ssa_artifact(load_ir("masked_add"), backend)
    x = torch.zeros(8)
    assert fitting(artifact, {"x": x, "y": x, "out": x, "n": 8}) is artifact
    bindings = {"x": x, "y": x, "out": x, "n": 2**31 + 5}
    assert fitting(artifact, bindings).index_bits == 64
    without_wide_form(backend)
    with pytest.raises(LaunchError, match=r"and n is 2147483653, past 2147483647"):
        fitting(artifact, bindings)


def arrange_flat(out, y):
    return out.tile((16,)), y.flatten()[5:69].tile((16,))


def copy_flat(out, y):
    out = y  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_flattened_size_past_the_width_takes_the_wide_form(backend):
    """Every size and offset of `y` fits 32 bits (stride 0: 128 KiB), but its flattened size, a
    product the kernel computes for the bounds check, is past 2^31: in 32 bits it wrapped negative
    and every mask was false. The same handle on a small `y` before and after."""
    row = torch.arange(2**15 + 3, dtype=torch.int32)
    handle = ninetoothed.make(arrange_flat, copy_flat, (Tensor(1), Tensor(2)), backend=backend)
    for rows in (4, 2**16 + 1, 4):
        out, y = torch.full((64,), -99, dtype=torch.int32), row.expand(rows, row.numel())
        handle(out, y)
        assert torch.equal(out, row[5:69]), rows
        bits = fitting(handle.last, handle.bindings(out, y)).index_bits
        assert bits == (64 if rows > 4 else handle.last.index_bits), rows
