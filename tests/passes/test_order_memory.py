"""ssa.order_memory: where a target's threads would race on global memory (Triton orders shared
memory only), a barrier goes between a program's dependent accesses, and nowhere else; where a
program is one thread, `ntl.debug_barrier()` is removed. Every program also runs on every backend
against torch, outputs poisoned."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.runtime.tilelang_launcher import cuda_source

BACKENDS = sorted(TARGETS)


def pair(x, y, BLOCK=16):
    return x.tile((BLOCK,)), y.tile((BLOCK,))


def triple(x, y, z, BLOCK=16):
    return x.tile((BLOCK,)), y.tile((BLOCK,)), z.tile((BLOCK,))


def read_back(x, y, z):
    y = x * 2  # noqa: F841
    z = ntl.flip(y, 0) + 1  # noqa: F841


def in_place(x, y):
    x = x * 2 + y  # noqa: F841


def overwritten_after_reading(x, y, z):
    before = y * 1.0
    y = x  # noqa: F841
    z = before  # noqa: F841


def two_atomics(x, y):
    ntl.atomic_add(y.source.data_ptr() + x.offsets(0) % 4, x)
    ntl.atomic_add(y.source.data_ptr() + (x.offsets(0) + 1) % 4, x)


def two_kinds(x, y):
    ntl.atomic_add(y.source.data_ptr() + x.offsets(0) % 4, x)
    ntl.atomic_max(y.source.data_ptr() + (x.offsets(0) + 1) % 4, x)


def two_exchanges(x, y):
    ntl.atomic_xchg(y.source.data_ptr() + x.offsets(0) % 4, x)
    ntl.atomic_xchg(y.source.data_ptr() + (x.offsets(0) + 1) % 4, x)


def per_iteration(x, y):
    """Each round adds one to every element of y and reads its neighbour's value back."""
    offsets = y.offsets(0)
    inside = offsets < y.source.shape[0]
    for _ in range(3):
        value = ntl.load(y.source.data_ptr() + offsets, mask=inside)
        ntl.store(y.source.data_ptr() + offsets, value + x, mask=inside)


def explicit(x, y, z):
    y = x * 3  # noqa: F841
    ntl.debug_barrier()
    z = x + 1  # noqa: F841


def _barriers(application, arrangement, tensors, args, backend="triton"):
    kernel = ninetoothed.make(arrangement, application, tensors, backend=backend)
    return kernel.compile(*args).ssa.count("mem.barrier")


def _nan(*shape):
    return torch.full(shape, math.nan)


def test_a_tile_read_back_after_its_store_is_fenced():
    args = (torch.randn(40), _nan(40), _nan(40))
    ssa = ninetoothed.make(triple, read_back, (Tensor(1),) * 3).compile(*args).ssa
    store, barrier = ssa.index("mem.store(%y"), ssa.index("mem.barrier")
    assert store < barrier < ssa.index("mem.load(%y") and ssa.count("mem.barrier") == 1


def test_independent_and_value_dependent_accesses_are_not_fenced():
    assert _barriers(in_place, pair, (Tensor(1),) * 2, (torch.randn(40), torch.randn(40))) == 0
    counts = torch.zeros(4)
    assert _barriers(two_atomics, pair, (Tensor(1), Tensor(1)), (torch.randn(40), counts)) == 0


@pytest.mark.parametrize("application", [two_kinds, two_exchanges])
def test_atomics_that_do_not_commute_are_fenced(application):
    """An add then a max of one element differ from a max then an add; so do two exchanges."""
    args = (torch.randn(40), torch.zeros(4))
    assert _barriers(application, pair, (Tensor(1), Tensor(1)), args) == 1


def test_a_store_over_what_was_read_for_something_else_is_fenced():
    args = (torch.randn(40), torch.randn(40), _nan(40))
    assert _barriers(overwritten_after_reading, triple, (Tensor(1),) * 3, args) == 1


def test_a_loop_reading_what_its_previous_iteration_wrote_is_fenced_inside():
    ssa = ninetoothed.make(pair, per_iteration, (Tensor(1),) * 2).compile(
        torch.randn(40), torch.randn(40)
    )
    body = ssa.ssa[ssa.ssa.index("scf.for") :]
    assert body.index("mem.barrier") < body.index("mem.load(%y")


@pytest.mark.parametrize("backend", BACKENDS)
def test_ordered_programs_match_torch(backend):
    x = torch.randn(40)
    y, z = _nan(40), _nan(40)
    ninetoothed.make(triple, read_back, (Tensor(1),) * 3, backend=backend)(x, y, z)
    torch.testing.assert_close(y, x * 2)
    expected = torch.cat([(x[i : i + 16] * 2).flip(0) for i in (0, 16)])
    torch.testing.assert_close(z[:32], expected + 1)

    y, z = torch.randn(40), _nan(40)
    before = y.clone()
    kernel = ninetoothed.make(triple, overwritten_after_reading, (Tensor(1),) * 3, backend=backend)
    kernel(x, y, z)
    torch.testing.assert_close((y, z), (x, before))

    y = torch.randn(40)
    start = y.clone()
    ninetoothed.make(pair, per_iteration, (Tensor(1),) * 2, backend=backend)(x, y)
    torch.testing.assert_close(y, start + 3 * x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_debug_barrier_runs_everywhere_and_stays_only_where_threads_wait(backend):
    x, y, z = torch.randn(40), _nan(40), _nan(40)
    kernel = ninetoothed.make(triple, explicit, (Tensor(1),) * 3, backend=backend)
    kernel(x, y, z)
    torch.testing.assert_close((y, z), (x * 3, x + 1))
    kept = kernel.compile(x, y, z).ssa.count("mem.barrier")
    if backend != "cuda":  # whose loops over threads have barriers of their own (lower_parallel)
        assert kept == (1 if backend == "triton" else 0)


def test_debug_barrier_on_tilelang_cuda_is_a_block_barrier():
    kernel = ninetoothed.make(triple, explicit, (Tensor(1),) * 3, backend="tilelang", device="cuda")
    artifact = kernel.compile_declared()
    assert "T.sync_threads()" in artifact.source
    assert "__syncthreads()" in cuda_source(artifact)
