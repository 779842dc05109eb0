"""`for k in range(lower, upper, step)` counts as Python's range for every step: below 0, known
only at run time, or giving no value. The IR's loops step up (the passes read a loop variable as
lying in [lower, upper - 1]), so the front end counts such a loop's iterations instead. Before,
a loop counting down never ran on the CUDA C++ form and ran extra iterations on TileLang and TVM
(reading tiles before the first: the TVM worker died)."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError

SIZE = 8


def counted(x, lower, upper, step, down, strided, runtime):
    acc = x * 0.0
    for k in range(lower, 0, -1):
        acc = acc * 2 + k
    down = acc  # noqa: F841
    acc = x * 0.0
    for k in range(10, lower, -3):
        acc = acc * 2 + k
    strided = acc  # noqa: F841
    acc = x * 0.0
    for k in range(lower, upper, step):
        acc = acc * 2 + k
    runtime = acc  # noqa: F841


def _horner(values) -> float:
    acc = 0.0
    for k in values:
        acc = acc * 2 + k
    return acc


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_steps_below_zero_and_known_at_run_time(backend):
    scalar = Tensor(0, dtype=ntl.int32)
    kernel = ninetoothed.make(
        lambda x, lo, up, st, *outs: (
            x.tile((SIZE,)),
            lo,
            up,
            st,
            *(o.tile((SIZE,)) for o in outs),
        ),
        counted,
        (Tensor(1), scalar, scalar, scalar, Tensor(1), Tensor(1), Tensor(1)),
        backend=backend,
    )
    # (lower, upper, step): up, down, down by 3, empty either way, and a step of 0 (no value:
    # Python raises there, a kernel cannot)
    for lower, upper, step in ((3, 11, 2), (9, -4, -3), (2, 7, -1), (5, 5, 1), (4, 0, 0)):
        outputs = [torch.full((SIZE,), float("nan")) for _ in range(3)]
        kernel(torch.zeros(SIZE), lower, upper, step, *outputs)
        ranges = (range(lower, 0, -1), range(10, lower, -3))
        ranges += (range(lower, upper, step) if step else (),)
        for out, values in zip(outputs, ranges, strict=True):
            assert out.tolist() == [_horner(values)] * SIZE, (lower, upper, step)


def reversed_rows(x, o):
    acc = ntl.zeros(o.shape, dtype=ntl.float32)
    for k in range(x.shape[0] - 1, -1, -1):
        acc = acc * 2 + ntl.sum(x[k], 1)
    o = acc  # noqa: F841


def _rows(x, o, BN):
    rows = x.tile((1, BN)).tile((1, -1)).squeeze(1)
    rows.dtype = rows.dtype.squeeze(0)
    return rows, o.tile((1,))


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("block", [1, 4])
def test_a_tile_level_read_backwards(backend, block):
    """Each of a row's tiles read once, last first: no read before the first tile."""
    x = torch.randn(3, 5 * block, generator=torch.Generator().manual_seed(block))
    out = torch.full((3,), float("nan"))
    kernel = ninetoothed.make(
        lambda x, o: _rows(x, o, BN=block), reversed_rows, (Tensor(2), Tensor(1)), backend=backend
    )
    kernel(x, out)
    tiles = x.reshape(3, 5, block).sum(-1)
    want = [_horner(reversed(row)) for row in tiles.tolist()]
    torch.testing.assert_close(out, torch.tensor(want))


def stepless(x, o):
    for k in range(0, 4, 0):
        o = x + k  # noqa: F841


def test_a_step_of_zero_is_refused_where_it_is_written():
    kernel = ninetoothed.make(
        lambda x, o: (x.tile((SIZE,)), o.tile((SIZE,))), stepless, (Tensor(1), Tensor(1))
    )
    with pytest.raises(CompileError, match=r"test_range_steps\.py:\d+: range\(\) step must"):
        kernel(torch.zeros(SIZE), torch.zeros(SIZE))
