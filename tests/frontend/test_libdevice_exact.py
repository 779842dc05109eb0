"""libdevice's exact functions (bit reinterpretation, `_rn` arithmetic, conversions with a
rounding mode, sign and class queries, bit counts, halving adds, `fast_*`) on every backend,
against Python's and torch's answers on edge values: signed zeros, NaN, infinities, halves, values
past an integer type's range, the extremes of each integer type."""

import math

import pytest
import torch
import triton.language as tl
from triton.language.extra import libdevice

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor

FLOATS = torch.tensor(
    [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 1e10, -1e10, 3e9, -3e9, 2.0**31, -(2.0**31)]
    + [math.inf, -math.inf, math.nan, -math.nan, 1e-30, 0.49999997, 7.0, -7.0, 255.5]
)
OTHERS = torch.flip(FLOATS, (0,))
INTS = torch.tensor(
    [0, 1, -1, 2, 7, 8, 255, 256, 2**31 - 1, -(2**31), 12345, -12345, 0x0F0F0F0F, 0x40000000],
    dtype=torch.int32,
)
INT_PAIRS = (INTS, torch.flip(INTS, (0,)))


def copysign(x, y, out):
    out = libdevice.copysign(x, y)  # noqa: F841


def fdim(x, y, out):
    out = libdevice.fdim(x, y)  # noqa: F841


def saturatef(x, out):
    out = libdevice.saturatef(x)  # noqa: F841


def rounded_arithmetic(x, y, out):
    out = libdevice.add_rn(libdevice.mul_rn(x, y), libdevice.sub_rn(y, libdevice.rcp_rn(x)))  # noqa: F841


def fmod(x, y, out):
    out = libdevice.fmod(x, y)  # noqa: F841


def fast(x, out):
    y = libdevice.fast_expf(x) + libdevice.fast_logf(x) + libdevice.fast_log2f(x)
    out = y + libdevice.fast_sinf(x) * libdevice.fast_cosf(x) + libdevice.fast_tanhf(x)  # noqa: F841


def float_bits(x, out):
    out = libdevice.float_as_int(x)  # noqa: F841


def int_bits(i, out):
    out = libdevice.int_as_float(i)  # noqa: F841


def double_bits(x, out):
    out = libdevice.double_as_longlong(x.to(tl.float64))  # noqa: F841


def classes(x, out):
    out = libdevice.signbit(x) * 4 + libdevice.finitef(x) * 2 + libdevice.isfinited(x)  # noqa: F841


def to_int_rn(x, out):
    out = libdevice.float2int_rn(x)  # noqa: F841


def to_int_rz(x, out):
    out = libdevice.float2int_rz(x)  # noqa: F841


def to_int_rd(x, out):
    out = libdevice.float2int_rd(x)  # noqa: F841


def to_uint_ru(x, out):
    out = libdevice.float2uint_ru(x)  # noqa: F841


def to_ll_rn(x, out):
    out = libdevice.double2ll_rn(x) + libdevice.llrint(x) * 0  # noqa: F841


def ll_round(x, out):
    out = libdevice.llround(x)  # noqa: F841


def popc(i, out):
    out = libdevice.popc(i)  # noqa: F841


def clz(i, out):
    out = libdevice.clz(i)  # noqa: F841


def ffs(i, out):
    out = libdevice.ffs(i)  # noqa: F841


def brev(i, out):
    out = libdevice.brev(i)  # noqa: F841


def mulhi(i, j, out):
    out = libdevice.mulhi(i, j)  # noqa: F841


def hadd(i, j, out):
    out = libdevice.hadd(i, j)  # noqa: F841


def rhadd(i, j, out):
    out = libdevice.rhadd(i, j)  # noqa: F841


def _saturated(values, rounding, low, high) -> torch.Tensor:
    """Python's rounding of each float, saturated to [low, high], NaN as 0."""
    out = []
    for v in values.tolist():
        if math.isnan(v):
            out.append(0)
        elif math.isinf(v):
            out.append(high if v > 0 else low)
        else:
            out.append(min(max(rounding(v), low), high))
    return torch.tensor(out, dtype=torch.int64)


def _half_away(v: float) -> int:
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def _bits_of(values: list[int], bits: int) -> list[int]:
    return [v % 2**bits for v in values]


def _signed32(values: list[int]) -> torch.Tensor:
    return torch.tensor([v - 2**32 if v >= 2**31 else v for v in values], dtype=torch.int64)


I32_MIN, I32_MAX = -(2**31), 2**31 - 1
U32 = [v % 2**32 for v in INTS.tolist()]
CASES = {
    copysign: ((FLOATS, OTHERS), torch.float32, lambda x, y: torch.copysign(x, y)),
    fdim: (
        (FLOATS, OTHERS),
        torch.float32,
        lambda x, y: torch.where(x.isnan() | y.isnan(), math.nan, torch.where(x > y, x - y, 0.0)),
    ),
    saturatef: ((FLOATS,), torch.float32, lambda x: torch.where(x > 0, x.clamp(max=1.0), 0.0)),
    rounded_arithmetic: ((FLOATS, OTHERS), torch.float32, lambda x, y: x * y + (y - 1.0 / x)),
    fmod: ((FLOATS, OTHERS), torch.float32, torch.fmod),
    float_bits: ((FLOATS,), torch.int32, lambda x: x.view(torch.int32)),
    int_bits: ((INTS,), torch.float32, lambda i: i.view(torch.float32)),
    double_bits: ((FLOATS,), torch.int64, lambda x: x.double().view(torch.int64)),
    classes: (
        (FLOATS,),
        torch.int32,
        lambda x: torch.signbit(x).int() * 4 + x.isfinite().int() * 3,
    ),
    to_int_rn: ((FLOATS,), torch.int32, lambda x: _saturated(x, round, I32_MIN, I32_MAX)),
    to_int_rz: ((FLOATS,), torch.int32, lambda x: _saturated(x, math.trunc, I32_MIN, I32_MAX)),
    to_int_rd: ((FLOATS,), torch.int32, lambda x: _saturated(x, math.floor, I32_MIN, I32_MAX)),
    to_uint_ru: ((FLOATS,), torch.int64, lambda x: _saturated(x, math.ceil, 0, 2**32 - 1)),
    to_ll_rn: ((FLOATS,), torch.int64, lambda x: _saturated(x, round, -(2**63), 2**63 - 1)),
    ll_round: ((FLOATS,), torch.int64, lambda x: _saturated(x, _half_away, -(2**63), 2**63 - 1)),
    popc: ((INTS,), torch.int32, lambda i: torch.tensor([bin(v).count("1") for v in U32])),
    clz: ((INTS,), torch.int32, lambda i: torch.tensor([32 - v.bit_length() for v in U32])),
    ffs: (
        (INTS,),
        torch.int32,
        lambda i: torch.tensor([(v & -v).bit_length() for v in U32]),
    ),
    brev: (
        (INTS,),
        torch.int32,
        lambda i: _signed32([int(f"{v:032b}"[::-1], 2) for v in U32]),
    ),
    mulhi: (
        INT_PAIRS,
        torch.int32,
        lambda i, j: torch.tensor(
            [(a * b) >> 32 for a, b in zip(i.tolist(), j.tolist(), strict=True)]
        ),
    ),
    hadd: (INT_PAIRS, torch.int32, lambda i, j: (i.long() + j.long()) >> 1),
    rhadd: (INT_PAIRS, torch.int32, lambda i, j: (i.long() + j.long() + 1) >> 1),
}


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("application", list(CASES), ids=lambda f: f.__name__)
def test_exact_functions(application, backend):
    inputs, out_dtype, reference = CASES[application]
    tensors = tuple(Tensor(1) for _ in range(len(inputs) + 1))
    arrangement = lambda *ts: tuple(t.tile((8,)) for t in ts)  # noqa: E731
    kernel = ninetoothed.make(arrangement, application, tensors, backend=backend)
    out = torch.full(inputs[0].shape, -7).to(out_dtype)
    if out.is_floating_point():
        out.fill_(math.nan)
    kernel(*inputs, out)
    expected = reference(*inputs).to(out_dtype)
    torch.testing.assert_close(out, expected, rtol=0, atol=0, equal_nan=True)
    if out.is_floating_point():  # the signs of zeros too
        numbers = ~expected.isnan()
        assert torch.equal(torch.signbit(out[numbers]), torch.signbit(expected[numbers]))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_fast_approximations_are_within_their_promise(backend):
    """`fast_*` promise a few ulps; computed exactly here, they are within them."""
    x = torch.rand(40) * 4 + 0.1
    kernel = ninetoothed.make(
        lambda x, out: (x.tile((8,)), out.tile((8,))), fast, (Tensor(1), Tensor(1)), backend=backend
    )
    out = torch.full_like(x, math.nan)
    kernel(x, out)
    expected = x.exp() + x.log() + x.log2() + x.sin() * x.cos() + x.tanh()
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)


def bit_counts(i, ones, leading, first, reversed_bits):
    ones = libdevice.popc(i)  # noqa: F841
    leading = libdevice.clz(i)  # noqa: F841
    first = libdevice.ffs(i)  # noqa: F841
    reversed_bits = libdevice.brev(i)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_bit_counts_of_64_bit_words(backend):
    i = torch.tensor(
        [0, 1, -1, 2**40 + 7, -(2**63), 2**63 - 1, 0x00F0F0F0F0F0F0F0, 12345678901234, 2**62],
        dtype=torch.int64,
    )
    int32 = ninetoothed.int32
    tensors = (Tensor(1), *(Tensor(1, dtype=int32) for _ in range(3)), Tensor(1))
    arrangement = lambda *ts: tuple(t.tile((4,)) for t in ts)  # noqa: E731
    kernel = ninetoothed.make(arrangement, bit_counts, tensors, backend=backend)
    outs = [torch.full((9,), -7, dtype=torch.int32) for _ in range(3)]
    outs.append(torch.zeros(9, dtype=torch.int64))
    kernel(i, *outs)
    words = [v % 2**64 for v in i.tolist()]
    reversed_words = [int(f"{v:064b}"[::-1], 2) for v in words]
    assert outs[0].tolist() == [bin(v).count("1") for v in words]
    assert outs[1].tolist() == [64 - v.bit_length() for v in words]
    assert outs[2].tolist() == [(v & -v).bit_length() for v in words]
    assert outs[3].tolist() == [v - 2**64 if v >= 2**63 else v for v in reversed_words]
