"""Every tile a kernel writes has a program. The grid has one program per outer tile of the first
tensor parameter; a written tensor tiled into more outer tiles (here a row block per program, cut
into column blocks) would be left partly unwritten. The launch raises the block sizes nobody gave
until the programs cover it (past a target's `tile_cap`: C targets cap tiles at 32, Triton's
static rule at 64), and refuses, before anything runs, where the given sizes or the symbols' bounds
leave no such schedule. A written tensor that shares memory with another argument warns: programs
run in no fixed order. (`x[:, None]` on a parameter indexes its tile, as in Triton.)"""

import warnings

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Symbol, Tensor
from compiler.runtime import launch
from compiler.runtime.bindings import LaunchError
from compiler.runtime.coverage import covering
from compiler.runtime.overlap import OverlapWarning

ROWS = 37


BLOCK_M, BLOCK_N = Symbol("BLOCK_M", meta=True), Symbol("BLOCK_N", meta=True)
SHORT_BLOCK = Symbol("BLOCK", meta=True, upper_bound=16)


def rows_arrangement(x, y, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N):
    return x.tile((BLOCK_M,)), y.tile((BLOCK_M, BLOCK_N))


def broadcast_rows(x, y):
    y = ntl.zeros(y.shape, dtype=ntl.float32) + x[:, None] * 2.0  # noqa: F841


def rows_kernel(backend: str):
    tensors = (Tensor(1), Tensor(2))
    return ninetoothed.make(
        rows_arrangement, broadcast_rows, tensors, backend=backend, device="cpu"
    )


def poisoned(columns: int) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.randn(ROWS)
    return x, torch.full((ROWS, columns), float("nan"))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_written_tensor_wider_than_one_tile_raises_the_block_size(backend):
    kernel = rows_kernel(backend)
    x, y = poisoned(128)  # wider than any backend's default column block
    kernel(x, y)
    torch.testing.assert_close(y, (x * 2.0)[:, None].expand(ROWS, 128))
    chosen = covering(kernel.last, kernel.bindings(x, y))
    assert chosen.schedule["BLOCK_N"] == 128
    assert chosen.schedule["BLOCK_M"] == kernel.last.schedule["BLOCK_M"]  # the fewest changes
    assert chosen is covering(kernel.last, kernel.bindings(x, y))  # lowered once


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_covered_launch_runs_as_compiled(backend):
    kernel = rows_kernel(backend)
    x, y = poisoned(8)
    kernel(x, y)
    torch.testing.assert_close(y, (x * 2.0)[:, None].expand(ROWS, 8))
    assert covering(kernel.last, kernel.bindings(x, y)) is kernel.last
    assert kernel.last.written_tiles == (("y", kernel.last.written_tiles[0][1]),)


def test_a_given_block_size_that_leaves_tiles_unwritten_is_refused():
    kernel = rows_kernel("cuda")
    x, y = poisoned(128)
    with pytest.raises(LaunchError) as error:
        kernel(x, y, BLOCK_N=32)
    message = str(error.value)
    assert "y has 8 outermost tiles but the launch has 2 programs" in message
    assert "6 of its tiles would never be written" in message
    assert "block sizes given (BLOCK_N); give larger ones" in message
    assert y.isnan().all()  # nothing ran


def test_a_tensor_no_schedule_covers_is_refused():
    """y is twice as long as x, and the block size may not pass 16: 3 tiles of y, 2 programs."""

    def arrangement(x, y, BLOCK=SHORT_BLOCK):
        return x.tile((BLOCK,)), y.tile((BLOCK,))

    def copy(x, y):
        y = x  # noqa: F841

    kernel = ninetoothed.make(arrangement, copy, (Tensor(1), Tensor(1)), backend="tvm")
    x, y = torch.randn(20), torch.full((40,), float("nan"))
    with pytest.raises(LaunchError, match="y has 3 outermost tiles but the launch has 2 programs"):
        kernel(x, y)
    assert y.isnan().all()


def twice(x, y):
    y = x * 2.0  # noqa: F841


def copy_kernel():
    def arrangement(x, y, BLOCK=BLOCK_M):
        return x.tile((BLOCK,)), y.tile((BLOCK,))

    return ninetoothed.make(arrangement, twice, (Tensor(1), Tensor(1)), backend="cuda")


def test_a_written_tensor_sharing_memory_with_another_argument_warns():
    """y is x shifted by one: a program reading x may run before or after the one writing y."""
    memory = torch.randn(65)
    with pytest.warns(OverlapWarning, match="y, which the kernel writes, shares memory with x"):
        copy_kernel()(memory[:64], memory[1:])


@pytest.mark.parametrize("views", ["in place", "apart", "own storage"])
def test_tensors_that_do_not_race_launch_without_a_warning(views):
    memory = torch.randn(128)
    x, y = {
        "in place": (memory, memory),
        "apart": (memory[:64], memory[64:]),
        "own storage": (memory, torch.empty(128)),
    }[views]
    expected = x * 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", OverlapWarning)
        copy_kernel()(x, y)
    torch.testing.assert_close(y, expected)


def test_a_missing_argument_is_the_launchers_error_not_the_coverage_checks():
    kernel = rows_kernel("cuda")
    x, y = poisoned(8)
    kernel(x, y)
    bindings = kernel.bindings(x, y)
    del bindings["x_size_0"]
    with pytest.raises(LaunchError, match="'x_size_0' is not bound"):
        launch(kernel.last, bindings)
