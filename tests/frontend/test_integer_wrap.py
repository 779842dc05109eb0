"""Integer arithmetic wraps, two's complement, on every backend, as Triton's does: C++ and TVM take
signed overflow as impossible and fold on it (`-x > 0` became `x < 0`, wrong for INT_MIN; `x + c <
x` became false), so their forms compute it where it is defined. `abs` of an integer stays an
integer (it went through f32, losing every bit past 24)."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

BACKENDS = sorted(TARGETS)
SIZE = 200  # past one block of 64: a ragged last block
SIGNED = (torch.int8, torch.int32, torch.int64)


UNSIGNED = (torch.uint8, torch.uint16, torch.uint32)


def _wrap(values: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Exact int64 results reduced to `dtype`'s range, two's complement (as int64)."""
    bits = torch.iinfo(dtype).bits
    if bits == 64:
        return values
    span = 1 << bits
    low = 0 if dtype in UNSIGNED else -(span >> 1)
    return (values - low) % span + low


def _inputs(dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Random values over the whole range, and its extremes at the front (as int64 where torch
    has no arithmetic on `dtype`: u16 and u32)."""
    g = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    low, high = (info.min >> 2, info.max >> 2) if info.bits == 64 else (info.min, info.max)
    x = torch.randint(low, high, (SIZE,), dtype=torch.int64, generator=g)
    x[:4] = torch.tensor([info.min, info.max, 0, -1 if info.min else 1])
    return x.to(dtype)


def _run(application, backend: str, *inputs: torch.Tensor, out_dtype: torch.dtype):
    out = torch.full((SIZE,), 77, dtype=out_dtype)
    kernel = ninetoothed.make(
        lambda *ts: tuple(t.tile((64,)) for t in ts),
        application,
        tuple(Tensor(1) for _ in range(len(inputs) + 1)),
        backend=backend,
        device="cpu",
    )
    kernel(*inputs, out)
    return out


def negated_positive(x, out):
    out = -x > 0  # noqa: F841


def zero_minus(x, out):
    out = 0 - x  # noqa: F841


def overflowed(x, out):
    out = x + 2000000000 < x  # noqa: F841


def hashed(x, out):
    h = x * 1103515245 + 12345
    out = h ^ (h << 7)  # noqa: F841


def absolute(x, out):
    out = ntl.abs(x) + 1  # noqa: F841


def builtin_absolute(x, out):
    out = abs(x)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", SIGNED)
def test_negation_wraps(backend, dtype):
    x = _inputs(dtype, 1)
    negated = _wrap(-x.long(), dtype)
    assert torch.equal(_run(negated_positive, backend, x, out_dtype=torch.bool), negated > 0)
    assert torch.equal(_run(zero_minus, backend, x, out_dtype=dtype), negated.to(dtype))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_unsigned_negation_wraps(backend, dtype):
    x = _inputs(dtype, 2)
    expected = _wrap(-x.long(), dtype)
    assert torch.equal(_run(zero_minus, backend, x, out_dtype=dtype).long(), expected)
    assert torch.equal(_run(negated_positive, backend, x, out_dtype=torch.bool), expected > 0)


def picks_int8_minimum(x, out):
    out = ntl.where(x == -128, 7, ntl.where(x != -128, x, 9))  # noqa: F841


def picks_int16_minimum(x, out):
    out = ntl.where(x == -32768, 7, ntl.where(x != -32768, x, 9))  # noqa: F841


def picks_int32_minimum(x, out):
    out = ntl.where(x == -2147483648, 7, ntl.where(x != -2147483648, x, 9))  # noqa: F841


def picks_int64_minimum(x, out):
    out = ntl.where(x == -9223372036854775808, 7, ntl.where(x != -9223372036854775808, x, 9))  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "application, dtype",
    [
        (picks_int8_minimum, torch.int8),
        (picks_int16_minimum, torch.int16),
        (picks_int32_minimum, torch.int32),
        (picks_int64_minimum, torch.int64),
    ],
    ids=["i8", "i16", "i32", "i64"],
)
def test_comparing_with_the_smallest_signed_value(application, dtype, backend):
    """`x == INT32_MIN`: TVM's simplifier rewrites it as `x - c == 0` and makes -c in int32, which
    it is not (TVM gave false for every x; TileLang refused the program)."""
    x = _inputs(dtype, 5)
    expected = torch.where(x == torch.iinfo(dtype).min, torch.tensor(7, dtype=dtype), x)
    assert torch.equal(_run(application, backend, x, out_dtype=dtype), expected)


def constant_casts(x, out):
    out = x + ntl.cast(-1, ntl.uint8) + ntl.cast(300, ntl.uint8)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_constant_cast_between_integers_wraps(backend):
    """A cast of a constant out of the type's range is folded to the number the cast gives
    (TIR's folder refused to make a uint of -1, at build time)."""
    x = _inputs(torch.uint8, 4)
    expected = _wrap(x.long() + 255 + 44, torch.uint8)
    assert torch.equal(_run(constant_casts, backend, x, out_dtype=torch.uint8).long(), expected)


def unsigned_64_negated(x, out):
    u = x.to(ntl.uint64, bitcast=True)
    minus = (0 - u).to(ntl.int64, bitcast=True)
    out = minus + (-u).to(ntl.int64, bitcast=True) + (u - (u + 1)).to(ntl.int64, bitcast=True)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsigned_64_bit_negation_and_subtraction_wrap(backend):
    """`0 - u`, `-u` and `u - (u + 1)` of u64 (torch has no u64 arithmetic: int64 bits in and
    out). TVM's simplifier took an unsigned `0 - u` for 0."""
    x = _inputs(torch.int64, 4)
    expected = -x - x - 1  # wraps in int64 as in u64
    assert torch.equal(_run(unsigned_64_negated, backend, x, out_dtype=torch.int64), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sum_and_product_wrap(backend):
    x = _inputs(torch.int32, 3)
    exact = x.long()
    assert torch.equal(
        _run(overflowed, backend, x, out_dtype=torch.bool),
        _wrap(exact + 2000000000, torch.int32) < exact,
    )
    h = _wrap(exact * 1103515245 + 12345, torch.int32)
    expected = _wrap(h ^ _wrap(h << 7, torch.int32), torch.int32).to(torch.int32)
    assert torch.equal(_run(hashed, backend, x, out_dtype=torch.int32), expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.uint8])
def test_abs_of_an_integer_is_exact(backend, dtype):
    x = _inputs(dtype, 4)
    magnitude = _wrap(x.long().abs(), dtype)
    expected = _wrap(magnitude + 1, dtype).to(dtype)
    assert torch.equal(_run(absolute, backend, x, out_dtype=dtype), expected)
    assert torch.equal(_run(builtin_absolute, backend, x, out_dtype=dtype), magnitude.to(dtype))


def wrapped_64(x, out):
    u = x.to(ntl.uint64, bitcast=True)
    product = ((u * 3) // 3).to(ntl.int64, bitcast=True)
    shifted = ((u << 5) >> 5).to(ntl.int64, bitcast=True)
    out = product + shifted + (x * 3) // 3 + ((x + x) >> 1)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_64_bit_products_and_shifts_wrap(backend):
    """u64 and i64 `(x * 3) // 3`, `(u << 5) >> 5` and `(x + x) >> 1` where the product, shift or
    sum wraps: TVM's LLVM form marks 64-bit arithmetic as never overflowing (`nuw`, `nsw`), and
    LLVM folded these to `x`."""
    x = _inputs(torch.int64, 5)
    x[4:8] = torch.tensor([2**62, -(2**62) - 1, 2**61 + 12345, 2**63 - 2**58])
    bits = x.view(torch.uint64).numpy().astype(object)
    mask = 2**64 - 1

    def signed(values):
        return torch.tensor([(v + 2**63) % 2**64 - 2**63 for v in values], dtype=torch.int64)

    product = signed([(v * 3 & mask) // 3 for v in bits])
    shifted = signed([(v << 5 & mask) >> 5 for v in bits])
    tripled = torch.div(x * 3, 3, rounding_mode="trunc")  # torch's int64 product wraps
    doubled = (x + x) >> 1
    expected = product + shifted + tripled + doubled
    assert torch.equal(_run(wrapped_64, backend, x, out_dtype=torch.int64), expected)


def unsigned_32_product(u, v, out):
    out = (u * v) // 7 + u * v  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsigned_32_bit_products_past_2_to_the_63_wrap(backend):
    """Two u32 values near 2^32 multiply past 2^63: the TIR forms compute narrow products in a
    wider type, which for u32 must be u64 (in i64 the product would overflow, which LLVM and C
    take as impossible)."""
    u, v = _inputs(torch.uint32, 6), _inputs(torch.uint32, 7)
    u[4:8] = torch.tensor([2**32 - 1, 2**32 - 3, 3 << 30, 2**31 + 1]).to(torch.uint32)
    v[4:8] = torch.tensor([2**32 - 1, 2**32 - 5, 3 << 30, 2**32 - 2]).to(torch.uint32)
    wrapped = [a * b % 2**32 for a, b in zip(u.tolist(), v.tolist(), strict=True)]
    expected = torch.tensor([(p // 7 + p) % 2**32 for p in wrapped], dtype=torch.int64)
    got = _run(unsigned_32_product, backend, u, v, out_dtype=torch.uint32)
    assert torch.equal(got.to(torch.int64), expected)


def divided(x, d, quotient, remainder):
    quotient = x // d + x // -1 * 0  # noqa: F841
    remainder = x % d + x % -1  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", SIGNED)
def test_the_smallest_number_divided_by_minus_one_wraps(backend, dtype):
    """`INT_MIN // -1` wraps to INT_MIN and `INT_MIN % -1` is 0, as Triton's interpreter and a
    GPU give them; C's and LLVM's division there is undefined (the CUDA C++ form's process and
    the TVM worker died of SIGFPE, TVM's i8 quotient was 128)."""
    x = _inputs(dtype, 6)
    d = torch.where(torch.arange(SIZE) % 3 == 0, -1, torch.randint(1, 9, (SIZE,))).to(dtype)
    d[1::7] = -7
    kernel = ninetoothed.make(
        lambda *ts: tuple(t.tile((64,)) for t in ts),
        divided,
        tuple(Tensor(1) for _ in range(4)),
        backend=backend,
    )
    quotient, remainder = torch.full((SIZE,), 77, dtype=dtype), torch.full((SIZE,), 77, dtype=dtype)
    kernel(x, d, quotient, remainder)
    half = 1 << (torch.iinfo(dtype).bits - 1)
    quotients, remainders = [], []
    for v, w in zip(x.tolist(), d.tolist(), strict=True):
        q = abs(v) // abs(w) * (1 if (v < 0) == (w < 0) else -1)  # truncating, exact
        quotients.append((q + half) % (2 * half) - half)
        remainders.append(v - w * q)
    assert torch.equal(quotient, torch.tensor(quotients, dtype=dtype))
    assert torch.equal(remainder, torch.tensor(remainders, dtype=dtype))
