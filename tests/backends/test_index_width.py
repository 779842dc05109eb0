"""Index width per launch: a backend that computes offsets in 32 bits refuses a tensor whose
offsets would not fit (before anything runs, naming the tensor and the backends that index in 64
bits), and CUDA C++, which indexes in 64 bits, adds 1 to every element of an int8 tensor of
2^31 + 4,099 elements (2.2 GB) correctly. The refused tensors are allocated and never touched."""

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.runtime.bindings import LaunchError

LARGE = 2**31 + 4099
NARROW = sorted(n for n, t in TARGETS.items() if t.capability("index_bits", 64) < 64)
WIDE = sorted(n for n, t in TARGETS.items() if t.capability("index_bits", 64) >= 64)


def arrange(x, out):
    return x.tile((1024,)), out.tile((1024,))


def add_one(x, out):
    out = x + 1  # noqa: F841


def kernel(backend: str):
    return ninetoothed.make(
        arrange, add_one, (Tensor(1), Tensor(1)), backend=backend, device="cpu"
    )


def test_backends_declare_their_index_width():
    assert NARROW and WIDE  # both kinds exist, so both tests below test something


@pytest.mark.parametrize("backend", NARROW)
def test_a_narrow_backend_refuses_offsets_past_its_width(backend):
    x = torch.empty(LARGE, dtype=torch.int8)
    with pytest.raises(LaunchError, match=r"indexes in 32 bits, and x .* past 2147483647") as info:
        kernel(backend)(x, torch.empty_like(x))
    assert all(name in str(info.value) for name in WIDE)


@pytest.mark.parametrize("backend", NARROW)
def test_strides_count_as_well_as_sizes(backend):
    """A small view whose elements lie far apart reaches as far as its strides take it."""
    storage = torch.empty(LARGE, dtype=torch.int8)
    x = storage.as_strided((3,), (2**30,))
    with pytest.raises(LaunchError, match="strides"):
        kernel(backend)(x, torch.empty(3, dtype=torch.int8))


@pytest.mark.parametrize("backend", NARROW)
def test_offsets_just_inside_the_width_run(backend):
    x = torch.randint(-100, 100, (5000,), dtype=torch.int8)
    out = torch.full_like(x, 77)
    kernel(backend)(x, out)
    assert torch.equal(out, x + 1)


@pytest.mark.parametrize("backend", WIDE)
def test_a_wide_backend_runs_past_two_to_the_31(backend):
    x = torch.empty(LARGE, dtype=torch.int8)
    x.fill_(3)
    marks = {0: 5, 2**31 - 1: -9, 2**31: 17, 2**31 + 1: -128, LARGE - 1: 126}
    for at, value in marks.items():
        x[at] = value
    out = torch.empty_like(x)
    out.fill_(55)  # poisoned
    kernel(backend)(x, out)
    for at, value in marks.items():
        assert out[at].item() == ((value + 1 + 128) % 256) - 128, at
    for start in range(0, LARGE, 2**28):  # the rest, in pieces (one comparison of 2 GB is 2 GB)
        piece = slice(start, min(start + 2**28, LARGE))
        assert torch.equal(out[piece], x[piece] + 1), start
