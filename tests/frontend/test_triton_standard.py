"""Triton's standard library as NineToothed programs call it (`ntl.join`, `ntl.softmax`,
`ntl.topk`, ...): compiled for each backend and run against torch, rows ragged against the block,
outputs NaN-poisoned; and the compile-time functions (`static_assert`, `static_print`)."""

import math

import pytest
import torch
import triton
import triton.language as tl

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError

ROWS, COLS = 37, 16  # rows ragged against the block of 4; a row is one whole tile
BACKENDS = sorted(TARGETS)


def arrange(x, y, out):
    return x.tile((4, COLS)), y.tile((4, COLS)), out.tile((4, -1))


def _run(application, backend, out, x=None, y=None):
    g = torch.Generator().manual_seed(len(application.__name__))
    x = torch.randn(ROWS, COLS, generator=g) if x is None else x
    y = torch.randn(ROWS, COLS, generator=g) if y is None else y
    tensors = (Tensor(2), Tensor(2), Tensor(2, shape_options={"constexpr": True}))
    kernel = ninetoothed.make(arrange, application, tensors, backend=backend, device="cpu")
    kernel(x, y, out)
    return x, y


def _run_vector(application, backend: str, x: torch.Tensor, out: torch.Tensor, out_tile: int):
    """`application(x, out)` over tiles of 16 elements of x and `out_tile` of out."""
    kernel = ninetoothed.make(
        lambda x, out: (x.tile((16,)), out.tile((out_tile,))),
        application,
        (Tensor(1), Tensor(1)),
        backend=backend,
        device="cpu",
    )
    kernel(x, out)


def _poisoned(columns: int, dtype=torch.float32) -> torch.Tensor:
    if dtype.is_floating_point:
        return torch.full((ROWS, columns), math.nan, dtype=dtype)
    return torch.full((ROWS, columns), -7, dtype=dtype)


def reshaped(x, y, out):
    flat = ntl.ravel(x)
    back = ntl.reshape(flat, (4, 16))
    out = back + ntl.zeros_like(x) + ntl.squeeze(ntl.unsqueeze(y, 0), 0) * 10.0  # noqa: F841


def normalized(x, y, out):
    out = ntl.softmax(x, 1) + ntl.fdiv(y, ntl.abs(x) + 1.0) + ntl.div_rn(y, 3.0)  # noqa: F841


def interleaved(x, y, out):
    out = ntl.interleave(x, y)  # noqa: F841


def concatenated(x, y, out):
    out = ntl.cat(x, y * 10.0, dim=1)  # noqa: F841


def joined_and_split(x, y, out):
    first, second = ntl.split(ntl.join(x, -y))
    out = first * 10.0 + second  # noqa: F841


def largest(x, y, out):
    out = ntl.topk(x, 4) + ntl.topk(y, 4, descending=False) * 10.0  # noqa: F841


def broadcast_pair(x, y, out):
    column, rows = ntl.broadcast(ntl.sum(x, 1, keep_dims=True), y)
    out = column * rows  # noqa: F841


def high_halves(x, y, out):
    bits = (x * 1e8).to(ntl.int32)
    out = ntl.umulhi(bits, (y * 1e8).to(ntl.int32)) + ntl.umulhi(bits.to(ntl.uint32), 7)  # noqa: F841


def wide_high_halves(x, y, out):
    unsigned = ntl.umulhi(x.to(ntl.uint64, bitcast=True), 0xD2E7470EE14C6C93)
    out = ntl.umulhi(x, y) ^ unsigned.to(ntl.int64, bitcast=True)  # noqa: F841


@triton.jit
def _larger(a, b):
    return tl.maximum(a, b)


def _plus(a, b):
    return a + b


@triton.jit
def _first_largest(value, index, other_value, other_index):
    keep = (value > other_value) | ((value == other_value) & (index < other_index))
    return tl.where(keep, value, other_value), tl.where(keep, index, other_index)


def _welford(mean, m2, count, other_mean, other_m2, other_count):
    """Chan's merge of two (mean, sum of squared deviations, count) triples."""
    total = count + other_count
    delta = other_mean - mean
    weight = other_count / total
    return mean + delta * weight, m2 + other_m2 + delta * delta * count * weight, total


def combined(x, y, out):
    largest = ntl.reduce(x, 1, _larger, keep_dims=True)
    out = largest + ntl.reduce(y, 1, _plus)[:, None] * 10.0 + x * 0.0  # noqa: F841


def scanned(x, y, out):
    out = ntl.associative_scan(x, 1, _plus) + ntl.associative_scan(y, 1, _larger, True) * 10.0  # noqa: F841


def tuple_reduced(x, y, out):
    columns = ntl.arange(0, 16)[None, :] + ntl.zeros((4, 16), ntl.int32)
    value, index = ntl.reduce((x, columns), 1, _first_largest)
    out = (value * 100.0 + index)[:, None] + x * 0.0  # noqa: F841


def variance(x, y, out):
    mean, m2, count = ntl.reduce((x, x * 0.0, x * 0.0 + 1.0), 1, _welford)
    out = (mean + m2 / count * 100.0)[:, None] + y * 0.0  # noqa: F841


def products(x, y, out):
    out = ntl.cumprod(ntl.abs(x) + 0.5, 1) + ntl.cumprod(ntl.abs(y) + 0.5, 1, reverse=True)  # noqa: F841


def bitwise(x, y, out):
    bits = (x * 1e8).to(ntl.int32)
    either = ntl.reduce_or(bits & 0xFFFF, 1, keep_dims=True)
    out = ntl.xor_sum(bits, 1)[:, None] + either * 3 + bits * 0  # noqa: F841


def _umulhi(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The high 32 bits of the unsigned product of the bits, read back as int32."""
    high = ((a.long() & 0xFFFFFFFF) * (b.long() & 0xFFFFFFFF)) >> 32
    return torch.where(high >= 2**31, high - 2**32, high).int()


CASES = {
    reshaped: (COLS, lambda x, y: x + y * 10),
    normalized: (COLS, lambda x, y: x.softmax(1) + y / (x.abs() + 1) + y / 3),
    interleaved: (2 * COLS, lambda x, y: torch.stack([x, y], -1).reshape(ROWS, -1)),
    concatenated: (2 * COLS, lambda x, y: torch.cat([x, y * 10], 1)),
    joined_and_split: (COLS, lambda x, y: x * 10 - y),
    largest: (4, lambda x, y: x.topk(4, 1).values + y.topk(4, 1, largest=False).values * 10),
    broadcast_pair: (COLS, lambda x, y: x.sum(1, keepdim=True) * y),
    combined: (COLS, lambda x, y: x.amax(1, keepdim=True) + y.sum(1, keepdim=True) * 10 + 0 * x),
    scanned: (COLS, lambda x, y: x.cumsum(1) + y.flip(1).cummax(1).values.flip(1) * 10),
    tuple_reduced: (COLS, lambda x, y: (x.amax(1) * 100 + x.argmax(1))[:, None] + 0 * x),
    variance: (COLS, lambda x, y: (x.mean(1) + x.var(1, unbiased=False) * 100)[:, None] + 0 * y),
    products: (COLS, lambda x, y: (x.abs() + 0.5).cumprod(1) + _reversed_cumprod(y.abs() + 0.5)),
}


def _reversed_cumprod(x: torch.Tensor) -> torch.Tensor:
    return x.flip(1).cumprod(1).flip(1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("application", list(CASES), ids=lambda f: f.__name__)
def test_standard_functions(application, backend):
    columns, reference = CASES[application]
    out = _poisoned(columns)
    x, y = _run(application, backend, out)
    torch.testing.assert_close(out, reference(x, y), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_umulhi_takes_the_bits_as_unsigned(backend):
    out = _poisoned(COLS, torch.int32)
    x, y = _run(high_halves, backend, out)
    bits = (x * 1e8).int()
    expected = _umulhi(bits, (y * 1e8).int()) + _umulhi(bits, torch.full_like(bits, 7))
    assert torch.equal(out, expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_umulhi_of_64_bit_words(backend):
    """The high 64 bits of 64 x 64-bit products, over the whole range (signs, carries between
    the halves), against Python's integers."""
    g = torch.Generator().manual_seed(64)
    x, y = (torch.randint(-(2**63), 2**63 - 1, (ROWS, COLS), generator=g) for _ in range(2))
    x[0, :4] = torch.tensor([-1, -1, 2**32 - 1, -(2**63)])
    y[0, :4] = torch.tensor([-1, 2**32 + 1, 2**32 - 1, -(2**63)])
    out = _poisoned(COLS, torch.int64)
    _run(wide_high_halves, backend, out, x, y)

    def high(a: int, b: int) -> int:
        return ((a % 2**64) * (b % 2**64)) >> 64

    expected = [
        high(a, b) ^ high(a, 0xD2E7470EE14C6C93)
        for a, b in zip(x.flatten().tolist(), y.flatten().tolist(), strict=True)
    ]
    signed = [v - 2**64 if v >= 2**63 else v for v in expected]
    assert out.flatten().tolist() == signed


@pytest.mark.parametrize("backend", BACKENDS)
def test_xor_sum_and_reduce_or(backend):
    out = _poisoned(COLS, torch.int32)
    x, _ = _run(bitwise, backend, out)
    bits = (x * 1e8).int().long()
    xor, either = torch.zeros(ROWS, dtype=torch.long), torch.zeros(ROWS, dtype=torch.long)
    for column in range(COLS):
        xor ^= bits[:, column]
        either |= bits[:, column] & 0xFFFF
    expected = (xor + either * 3)[:, None].expand(ROWS, COLS)
    assert torch.equal(out.long(), expected)


def counted(x, out):
    out = ntl.histogram(x, 8, mask=x != 3)  # noqa: F841


def grouped_order(x, out):
    rows, columns = ntl.arange(0, 16) // 4, ntl.arange(0, 16) % 4
    i, j = ntl.swizzle2d(rows, columns, 4, 4, 2)
    out = i * 4 + j + x * 0  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_counts_each_tile_and_skips_the_rest(backend):
    """Values outside 0 .. bins-1, and those the mask drops, are not counted (as on a GPU)."""
    x = torch.randint(-3, 12, (64,), dtype=torch.int32)
    out = torch.full((32,), -7, dtype=torch.int32)
    _run_vector(counted, backend, x, out, 8)
    kept = [tile[tile != 3] for tile in x.split(16)]
    expected = torch.stack([torch.bincount(t[(t >= 0) & (t < 8)], minlength=8) for t in kept])
    assert torch.equal(out, expected.flatten().int())


@pytest.mark.parametrize("backend", BACKENDS)
def test_swizzle2d_orders_each_group_of_rows_by_column(backend):
    x = torch.zeros(16, dtype=torch.int32)
    out = torch.full((16,), -7, dtype=torch.int32)
    _run_vector(grouped_order, backend, x, out, 16)
    # Triton's docstring: rows 0-1 and 2-3 are groups, numbered down each column in turn
    assert out.tolist() == [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]


def checked(x, y, out):
    ntl.static_assert(x.shape[1] == 16, "rows of 16")
    ntl.static_print("tile", x.shape[1])
    ntl.assume(True)
    out = x  # noqa: F841


def checked_wrongly(x, y, out):
    ntl.static_assert(x.shape[1] == 32, "rows of 32")
    out = x  # noqa: F841


def test_static_functions_act_while_compiling(capsys):
    out = _poisoned(COLS)
    x, _ = _run(checked, "triton", out)
    assert torch.equal(out, x)
    assert "tile 16" in capsys.readouterr().out
    with pytest.raises(CompileError, match=r"test_triton_standard.py:\d+: static_assert failed"):
        _run(checked_wrongly, "triton", _poisoned(COLS))


def split_odd(x, y, out):
    out = ntl.split(x)  # noqa: F841


def test_split_of_a_last_dim_other_than_two_is_refused():
    with pytest.raises(CompileError, match="last dim is 2"):
        _run(split_odd, "triton", _poisoned(COLS))


def floor_divided(x, y, out):
    out = x // 2.0  # noqa: F841


def test_floor_division_of_floats_is_refused_with_the_fix():
    with pytest.raises(CompileError, match=r"test_triton_standard.py:\d+: `//` of f32.*ntl.floor"):
        _run(floor_divided, "triton", _poisoned(COLS))


def open_block(x, y, out):
    out = ntl.reduce(x, 1, _plus)  # noqa: F841


def test_combining_over_a_block_size_left_open_is_refused():
    """The reduction unrolls over the dim: a block size the schedule picks later is refused."""
    kernel = ninetoothed.make(
        lambda x, y, out: tuple(t.tile((1, ninetoothed.block_size())) for t in (x, y, out)),
        open_block,
        (Tensor(2), Tensor(2), Tensor(2)),
        backend="triton",
        device="cpu",
    )
    x = torch.randn(4, 64)
    with pytest.raises(CompileError, match="unrolls over the dim.*give the block size as an int"):
        kernel(x, x, torch.empty(4, 64))


def widened_products(x, out):
    out = ntl.cumprod(x, 0).to(ntl.float32)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_triton_source_functions_take_values_not_the_tensors(backend):
    """`cumprod` comes from Triton's own source, which rebinds its parameter
    (`input = input.to(...)`): that is a new value there, never a store into the tensor passed."""
    x = torch.tensor([3, -2, 5, 7, 2, 2, 2, 3] * 4, dtype=torch.int8)
    given = x.clone()
    out = torch.full((32,), math.nan)
    _run_vector(widened_products, backend, x, out, 16)
    assert torch.equal(x, given)
    expected = torch.cat([tile.int().cumprod(0) for tile in given.split(16)]).float()
    assert torch.equal(out, expected)
