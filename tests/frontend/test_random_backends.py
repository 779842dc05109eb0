"""Triton's random functions (`rand`/`randn`/`randint`, their four-stream forms, `philox` on 32-
and 64-bit counters, `uint_to_uniform_float`) on every backend give, for a seed and offsets,
exactly the numbers Triton's own give (run here in Triton's interpreter as the oracle)."""

import os

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError

SIZE, BLOCK = 300, 64  # ragged: the last block is partly masked
SEED = 2**33 + 12345  # wider than 32 bits, so both key words matter


def arrange(x, seed, out):
    return x.tile((BLOCK,)), seed, out.tile((BLOCK,))


def uniform(x, seed, out):
    out = ntl.rand(seed, x.offsets())  # noqa: F841


def draws(x, seed, out):
    offsets = x.offsets()
    out = ntl.rand(seed, offsets) + ntl.randn(seed, offsets) * 10.0 + ntl.randint(seed, offsets)  # noqa: F841


def triton_reference(seed: int) -> torch.Tensor:
    os.environ.setdefault("TRITON_INTERPRET", "1")
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        value = tl.rand(seed, offsets) + tl.randn(seed, offsets) * 10.0
        value += tl.randint(seed, offsets).to(tl.float32)
        tl.store(out_ptr + offsets, value, mask=mask)

    out = torch.empty(SIZE)
    kernel[(triton.cdiv(SIZE, BLOCK),)](out, seed, SIZE, BLOCK=BLOCK)
    return out


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_random_matches_triton(backend):
    kernel = ninetoothed.make(arrange, draws, (Tensor(1), Tensor(0), Tensor(1)), backend=backend)
    out = torch.full((SIZE,), float("nan"))
    kernel(torch.zeros(SIZE), SEED, out)
    torch.testing.assert_close(out, triton_reference(SEED), rtol=1e-5, atol=1e-3)
    again = torch.full((SIZE,), float("nan"))
    kernel(torch.zeros(SIZE), SEED + 1, again)
    assert (again != out).float().mean() > 0.99  # another seed, other numbers


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_uniform_numbers_of_a_flattened_tensor(backend):
    """As dropout draws them: the offsets of a flattened 3-D tensor, a seed below 2^31. Every
    number lies in [0, 1), and their mean is near 1/2."""

    def flattened(x, seed, out):
        block = ninetoothed.block_size()
        return x.flatten().tile((block,)), seed, out.flatten().tile((block,))

    tensors = (Tensor(3), Tensor(0, dtype=ninetoothed.int64), Tensor(3))
    kernel = ninetoothed.make(flattened, uniform, tensors, backend=backend)
    x = torch.zeros(3, 50, 7)
    out = torch.full_like(x, float("nan"))
    kernel(x, 12345, out)
    assert ((out >= 0) & (out < 1)).all()
    assert abs(out.mean().item() - 0.5) < 0.05


def four_streams(x, seed, w0, w1, w2, w3, c0, c3, uniform, normal):
    offsets = x.offsets()
    w0, w1, w2, w3 = ntl.randint4x(seed, offsets)  # noqa: F841
    wide_offsets = offsets.to(ntl.int64) * 7919
    zero = wide_offsets * 0
    wide = ntl.philox(seed, wide_offsets, zero + 5, zero, zero + 3, n_rounds=6)
    c0 = wide[0].to(ntl.int64, bitcast=True)  # noqa: F841
    c3 = wide[3].to(ntl.int64, bitcast=True)  # noqa: F841
    u1, u2, u3, u4 = ntl.rand4x(seed, offsets, 7)
    uniform = u1 + 2.0 * u2 + 4.0 * u3 + 8.0 * u4 + 16.0 * ntl.uint_to_uniform_float(wide[1])  # noqa: F841
    n1, n2, n3, n4 = ntl.randn4x(seed, offsets)
    normal = n1 + 2.0 * n2 + 4.0 * n3 + 8.0 * n4  # noqa: F841


def triton_four_streams(seed: int) -> list[torch.Tensor]:
    os.environ.setdefault("TRITON_INTERPRET", "1")
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(outs, seed, n, BLOCK: tl.constexpr):
        w0_ptr, w1_ptr, w2_ptr, w3_ptr, c0_ptr, c3_ptr, uniform_ptr, normal_ptr = outs
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        w0, w1, w2, w3 = tl.randint4x(seed, offsets)
        for ptr, word in ((w0_ptr, w0), (w1_ptr, w1), (w2_ptr, w2), (w3_ptr, w3)):
            tl.store(ptr + offsets, word.to(tl.int64), mask=mask)
        wide_offsets = offsets.to(tl.int64) * 7919
        zero = wide_offsets * 0
        wide = tl.philox(seed, wide_offsets, zero + 5, zero, zero + 3, n_rounds=6)
        tl.store(c0_ptr + offsets, wide[0].to(tl.int64, bitcast=True), mask=mask)
        tl.store(c3_ptr + offsets, wide[3].to(tl.int64, bitcast=True), mask=mask)
        u1, u2, u3, u4 = tl.rand4x(seed, offsets, 7)
        uniform = u1 + 2.0 * u2 + 4.0 * u3 + 8.0 * u4 + 16.0 * tl.uint_to_uniform_float(wide[1])
        tl.store(uniform_ptr + offsets, uniform, mask=mask)
        n1, n2, n3, n4 = tl.randn4x(seed, offsets)
        tl.store(normal_ptr + offsets, n1 + 2.0 * n2 + 4.0 * n3 + 8.0 * n4, mask=mask)

    outs = [torch.empty(SIZE, dtype=torch.int64) for _ in range(6)]
    outs += [torch.empty(SIZE) for _ in range(2)]
    kernel[(triton.cdiv(SIZE, BLOCK),)](tuple(outs), seed, SIZE, BLOCK=BLOCK)
    return outs


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_four_streams_and_wide_counters_match_triton(backend):
    def arrange(x, seed, *outs):
        return x.tile((BLOCK,)), seed, *(out.tile((BLOCK,)) for out in outs)

    outs = [Tensor(1, dtype=ninetoothed.int64) for _ in range(6)] + [Tensor(1), Tensor(1)]
    kernel = ninetoothed.make(arrange, four_streams, (Tensor(1), Tensor(0), *outs), backend=backend)
    got = [torch.full((SIZE,), -1, dtype=torch.int64) for _ in range(6)]
    got += [torch.full((SIZE,), float("nan")) for _ in range(2)]
    kernel(torch.zeros(SIZE), SEED, *got)
    for name, ours, theirs in zip(
        ("w0", "w1", "w2", "w3", "c0", "c3", "uniform", "normal"),
        got,
        triton_four_streams(SEED),
        strict=True,
    ):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-4, msg=name)


def philox_of_signed_words(x, seed, out):
    words = ntl.philox_impl(x.offsets(), 0, 0, 0, seed, seed)
    out = words[0]  # noqa: F841


def uniform_of_halves(x, seed, out):
    out = ntl.uint_to_uniform_float(x.offsets().to(ntl.int16))  # noqa: F841


@pytest.mark.parametrize(
    ("application", "message"),
    [
        (philox_of_signed_words, r"philox_impl takes six words of one dtype, uint32 or uint64"),
        (uniform_of_halves, r"uint_to_uniform_float takes integers of 32 or 64 bits, got i16"),
    ],
)
def test_words_of_the_wrong_type_are_refused_at_the_line(application, message):
    kernel = ninetoothed.make(arrange, application, (Tensor(1), Tensor(0), Tensor(1)))
    with pytest.raises(CompileError, match=rf"test_random_backends.py:\d+: ntl.{message}"):
        kernel(torch.zeros(SIZE), SEED, torch.empty(SIZE))
