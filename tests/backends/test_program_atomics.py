"""An atomic a program makes once (outside its per-element loops) is made once per program on every
backend and form: on the GPU forms that run a program on many threads (CUDA C++, TileLang), one
thread makes it and the others read its old value (every thread made it: `atomic_add(p, s)` added
s once per thread). The CPU forms run it; the GPU forms' final SSA is checked for its structure."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.ir import parse_kernel

BLOCK = 16


def arrangement(x, counter, tickets):
    return x.tile((BLOCK,)), counter, tickets.tile((1,))


def take_a_ticket(x, counter, tickets):
    tickets = ntl.atomic_add(counter.data_ptr(), ntl.sum(x, 0))  # noqa: F841


TENSORS = (Tensor(1, dtype=ninetoothed.int32),) * 3


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_each_program_adds_once_and_sees_its_own_old_value(backend):
    programs = 9
    x = torch.randint(1, 50, (programs * BLOCK,), dtype=torch.int32)
    counter = torch.zeros(1, dtype=torch.int32)
    tickets = torch.full((programs,), -1, dtype=torch.int32)
    ninetoothed.make(arrangement, take_a_ticket, TENSORS, backend=backend)(x, counter, tickets)
    totals = x.view(programs, BLOCK).sum(1)
    assert counter.item() == totals.sum().item()
    # the programs took turns in some order: each old value is the sum of those before it
    order = tickets.argsort()
    assert torch.equal(tickets[order], torch.cumsum(totals[order], 0) - totals[order])


@pytest.mark.parametrize("backend", ["cuda", "tilelang"])
def test_on_the_gpu_one_thread_of_a_program_makes_its_atomic(backend):
    handle = ninetoothed.make(arrangement, take_a_ticket, TENSORS, backend=backend, device="cuda")
    x = torch.ones(4 * BLOCK, dtype=torch.int32)
    counter, tickets = torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=torch.int32)
    artifact = handle.compile(x, counter, tickets)
    kernel = parse_kernel(artifact.ssa)
    atomics = [op for op in kernel.walk() if op.name == "mem.atomic"]
    assert atomics
    for atomic in atomics:
        loop = atomic.parent.parent.parent  # the loop whose body holds it
        if loop.name == "scf.parallel":  # TileLang's own: an extent of one, one thread
            assert loop.operands[0].owner.attrs["value"] == 1
        else:  # this thread's share of one iteration: only thread 0 has one
            start, end, _ = (value.owner.name for value in loop.operands)
            assert (loop.name, start, end) == ("scf.for", "index.thread_id", "arith.constant")
            assert loop.operands[1].owner.attrs["value"] == 1
