"""`ntl.program_id` and `ntl.num_programs` answer as in NineToothed's launch, on every backend: one
program per outermost tile of the first tensor, numbered row-major on a 1-D grid (axes 1 and 2
have one program each), as int32."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError

BACKENDS = sorted(TARGETS)


def arrangement(x, y, BM=8, BN=16):
    return x.tile((BM, BN)), y.tile((BM, BN))


def tagged(x, y):
    here = ntl.program_id(0) * 1000 + ntl.num_programs(0)
    y = x + here + ntl.program_id(axis=1) * 7 + ntl.num_programs(2) * 100000  # noqa: F841


def seeded_by_program(x, y):
    rows = ntl.arange(0, 8)[:, None]
    offsets = ntl.program_id(0) * 128 + rows * 16 + ntl.arange(0, 16)[None, :]
    y = ntl.rand(77, offsets) + x * 0  # noqa: F841


def seeded_by_offsets(x, y):
    position = (x.offsets(0)[:, None] // 8 * 3 + x.offsets(1)[None, :] // 16) * 128
    within = x.offsets(0)[:, None] % 8 * 16 + x.offsets(1)[None, :] % 16
    y = ntl.rand(77, position + within) + x * 0  # noqa: F841


def _run(application, backend, x):
    y = torch.full_like(x, -1 if not x.is_floating_point() else float("nan"))
    tensors = (Tensor(2), Tensor(2))
    ninetoothed.make(arrangement, application, tensors, backend=backend, device="cpu")(x, y)
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_program_ids_number_the_first_tensors_tiles_row_major(backend):
    x = torch.randint(-5, 5, (30, 40), dtype=torch.int32)
    y = _run(tagged, backend, x)
    programs = 4 * 3
    pid = (torch.arange(30)[:, None] // 8) * 3 + torch.arange(40)[None, :] // 16
    assert y.dtype == torch.int32
    assert torch.equal(y.long(), x.long() + pid * 1000 + programs + 100000)


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_streams_keyed_by_program_id_are_the_offsets_ones(backend):
    x = torch.randn(30, 40)
    by_program = _run(seeded_by_program, backend, x)
    assert torch.equal(by_program, _run(seeded_by_offsets, backend, x))
    assert 0.4 < by_program.mean() < 0.6


@pytest.mark.parametrize("axis", [3, -1, "0"])
def test_an_axis_past_the_grid_is_refused(axis):
    def application(x, y):
        y = x + ntl.program_id(axis)  # noqa: F841

    with pytest.raises(CompileError, match=r"program_id\(axis\) takes axis 0, 1 or 2"):
        _run(application, "triton", torch.zeros(8, 16))
