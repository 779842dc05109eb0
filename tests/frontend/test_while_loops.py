"""`while` on a runtime scalar, as Triton runs it under NineToothed: the variables the body
reassigns are carried, the condition is checked before every iteration, and programs may run
different numbers of iterations. On every backend, against torch, outputs poisoned."""

import math
import shutil

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError
from compiler.runtime.cuda_build import compile_ptx
from compiler.runtime.tilelang_launcher import cuda_binary, cuda_source

BACKENDS = sorted(TARGETS)


def counted(x, n, y, BLOCK=16):
    return x.tile((BLOCK,)), n, y.tile((BLOCK,))


def halve_towards_two(x, n, y):
    value, k = x, 0
    while k < n:
        value = value * 0.5 + 1.0
        k += 1
    y = value  # noqa: F841


def nested(x, n, y):
    total = x * 0.0
    for i in range(3):
        k = 0
        while k < n + i:
            if k % 2 == 0:
                total += x
            else:
                total -= 0.5 * x
            k += 1
    y = total  # noqa: F841


def pairs(a, b, c, BLOCK=16):
    return a.tile((BLOCK,)), b.tile((BLOCK,)), c.tile((BLOCK,))


def euclid(a, b, c):
    """Greatest common divisors: each program loops until its own tile is done."""
    p, q = a, b
    while ntl.max(q) > 0:
        rest = ntl.where(q > 0, p % ntl.where(q > 0, q, 1), 0)
        p = ntl.where(q > 0, q, p)
        q = rest
    c = p  # noqa: F841


def lower_bound(x, table, c):
    """Binary search of each element in a sorted table, read through its source."""
    low = ntl.zeros((16,), ntl.int32)
    high = low + table.source.shape[0]
    while ntl.max(high - low) > 0:
        middle = (low + high) // 2
        below = table.source[middle] < x
        searching = low < high
        low = ntl.where(searching & below, middle + 1, low)
        high = ntl.where(searching & ~below, middle, high)
    c = low  # noqa: F841


def _gcd(a, b):
    return torch.tensor([math.gcd(int(p), int(q)) for p, q in zip(a, b, strict=True)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_counted_while_matches_torch(backend):
    kernel = ninetoothed.make(
        counted, halve_towards_two, (Tensor(1), Tensor(0), Tensor(1)), backend=backend
    )
    x = torch.randn(37)
    for n in (0, 5):
        y = torch.full_like(x, math.nan)
        kernel(x, n, y)
        expected = x.clone()
        for _ in range(n):
            expected = expected * 0.5 + 1.0
        torch.testing.assert_close(y, expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_nests_with_for_and_if(backend):
    kernel = ninetoothed.make(counted, nested, (Tensor(1), Tensor(0), Tensor(1)), backend=backend)
    x, n = torch.randn(37), 4
    y = torch.full_like(x, math.nan)
    kernel(x, n, y)
    trips = [n + i for i in range(3)]
    scale = sum((k + 1) // 2 - 0.5 * (k // 2) for k in trips)
    torch.testing.assert_close(y, x * scale)


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_program_loops_until_its_own_condition_fails(backend):
    kernel = ninetoothed.make(pairs, euclid, (Tensor(1), Tensor(1), Tensor(1)), backend=backend)
    a = torch.randint(0, 10_000, (45,), dtype=torch.int32)
    b = torch.randint(0, 10_000, (45,), dtype=torch.int32)
    b[16:32] = 0  # the second program's check fails at once
    c = torch.full_like(a, -1)
    kernel(a, b, c)
    assert torch.equal(c, _gcd(a, b).to(torch.int32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_binary_search_through_the_source_matches_searchsorted(backend):
    kernel = ninetoothed.make(
        pairs, lower_bound, (Tensor(1), Tensor(1), Tensor(1)), backend=backend
    )
    table = torch.randn(53).sort().values
    x = torch.cat([torch.randn(40), table[::7], torch.tensor([-9.0, 9.0])])
    c = torch.full(x.shape, -1, dtype=torch.int32)
    kernel(x, table, c)
    assert torch.equal(c, torch.searchsorted(table, x).to(torch.int32))


def _compile(application):
    tensors = (Tensor(1), Tensor(0), Tensor(1))
    kernel = ninetoothed.make(counted, application, tensors, backend="triton")
    x = torch.randn(20)
    y = torch.full_like(x, math.nan)
    kernel(x, 3, y)
    return x, y


def never_runs(x, n, y):
    value = x
    while n < 0 and False:
        value = ntl.sort(value, descending=True)  # never lowered: the body does not run
    y = value  # noqa: F841


def endless(x, n, y):
    value = x
    while 1:
        value = value + n
    y = value  # noqa: F841


def tile_condition(x, n, y):
    value = x
    while value < n:
        value = value + 1.0
    y = value  # noqa: F841


def breaking(x, n, y):
    k = 0
    while k < n:
        k += 1
        if k > 2:
            break
    y = x + k  # noqa: F841


def test_a_condition_false_when_compiling_skips_the_body():
    x, y = _compile(never_runs)
    assert torch.equal(x, y)


@pytest.mark.parametrize(
    "application, message",
    [
        (endless, r"this `while` never ends: its condition is true when the program compiles"),
        (tile_condition, r"`while` needs a scalar condition; reduce a tile to one first"),
        (breaking, r"Break statements are not supported"),
    ],
    ids=lambda case: getattr(case, "__name__", ""),
)
def test_loops_that_cannot_run_are_refused_at_their_line(application, message):
    with pytest.raises(CompileError, match=message) as caught:
        _compile(application)
    assert caught.value.filename == __file__
    assert caught.value.line is not None


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
@pytest.mark.parametrize("backend", ["cuda", "tilelang"])
def test_the_gpu_forms_build_for_sm_90(backend):
    """Built, not run (no GPU here): each thread checks the condition the block's reduction
    wrote, so every thread of a program leaves the loop together."""
    kernel = ninetoothed.make(
        pairs, euclid, (Tensor(1), Tensor(1), Tensor(1)), backend=backend, device="cuda"
    )
    artifact = kernel.compile(*(torch.ones(40, dtype=torch.int32),) * 3)
    if backend == "cuda":
        assert ".target sm_90" in compile_ptx(artifact.source, artifact.kernel_name)
    else:
        assert cuda_binary(cuda_source(artifact), "sm_90").startswith(b"\x7fELF")
