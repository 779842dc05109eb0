"""The ntl primitives NineToothed libraries use (Triton's language and libdevice), compiled for each
backend and run on this machine against torch: ragged row counts, NaN-poisoned outputs, Triton's
keyword arguments."""

import functools
import math
import operator
import shutil

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.dsl.language import libdevice
from compiler.errors import CompileError

ROWS, COLS = 37, 16  # rows ragged against the block of 4; a row is one whole tile


def arrange(x, y, out):
    def tiles(t):
        return t.tile((4, COLS)) if t.ndim == 2 else t.tile((4,))

    return tiles(x), tiles(y), tiles(out)


def inputs(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(ROWS, COLS, generator=g, dtype=torch.float64).float()
    halves = torch.randint(-24, 24, (ROWS, COLS), generator=g).float() / 4
    return x, halves


def elementwise(function):
    def application(x, y, out):
        out = function(x, y)  # noqa: F841

    application.__name__ = function.__name__
    return application


def _floor(x, y):
    return ntl.floor(x * 3.0) + ntl.ceil(y)


def _erf_tanh_atan(x, y):
    return ntl.erf(x) + libdevice.tanh(x * 2.0) + libdevice.atan(x * 3.0)


def _hyperbolic(x, y):
    return libdevice.cosh(x) + libdevice.acosh(ntl.abs(x) + 1.5) + libdevice.asinh(x) * 0.5


def _inverse(x, y):
    small = ntl.minimum(ntl.maximum(x * 0.4, -0.9), 0.9)
    return libdevice.atanh(small) + libdevice.asin(small) + libdevice.acos(small) * 0.25


def _small_arguments(x, y):
    return libdevice.log1p(x * 1e-3) * 1e3 + libdevice.expm1(x * 1e-3) * 1e3 + libdevice.tan(x)


def _logs(x, y):
    return libdevice.exp10(x * 0.5) + libdevice.log10(ntl.abs(x) + 0.1) + libdevice.atan2(x, y)


def _rounding(x, y):
    return libdevice.round(y) * 100.0 + libdevice.nearbyint(y) * 10.0 + libdevice.trunc(y)


def _pow(x, y):
    return libdevice.pow(y, ntl.floor(x * 2.0)) + libdevice.pow(ntl.abs(x), y)


def _clamp_fma(x, y):
    return ntl.fma(ntl.clamp(x, -0.5, 0.5), y, 1.0)


def _dtype_at_compile_time(x, y):
    if x.dtype == ntl.float32 and x.dtype.is_floating() and x.dtype != ntl.float16:
        return x.to(ntl.float64).to(ntl.float32) + 1.0
    return x


def _nan_tests(x, y):
    nan = ntl.where(y > 3.0, float("nan"), x)
    inf = ntl.where(y < -3.0, float("inf"), x)
    return ntl.where(libdevice.isnan(nan), 1.0, 0.0) + ntl.where(libdevice.isinf(inf), 2.0, 0.0)


def _nan_comparisons(x, y):
    nan = ntl.where(y > 3.0, float("nan"), x)
    unequal = ntl.where(nan != nan, 1.0, 0.0) + ntl.where(nan != x, 2.0, 0.0)
    return unequal + ntl.where(nan == nan, 4.0, 0.0) + ntl.where(nan <= x, 8.0, 0.0)


def _remainder(x, y):
    return x % y + (x * 4.0) % -1.5  # Triton's float %: C's fmod, the sign of the dividend


def _reference(name: str, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x, y = x.double(), y.double()
    small = (x * 0.4).clamp(-0.9, 0.9)
    return {
        "_floor": lambda: torch.floor(x * 3) + torch.ceil(y),
        "_erf_tanh_atan": lambda: torch.erf(x) + torch.tanh(x * 2) + torch.atan(x * 3),
        "_hyperbolic": lambda: torch.cosh(x) + torch.acosh(x.abs() + 1.5) + torch.asinh(x) * 0.5,
        "_inverse": lambda: torch.atanh(small) + torch.asin(small) + torch.acos(small) * 0.25,
        "_small_arguments": lambda: (
            torch.log1p(x * 1e-3) * 1e3 + torch.expm1(x * 1e-3) * 1e3 + torch.tan(x)
        ),
        "_logs": lambda: 10 ** (x * 0.5) + torch.log10(x.abs() + 0.1) + torch.atan2(x, y),
        "_rounding": lambda: (
            torch.sign(y) * torch.floor(y.abs() + 0.5) * 100 + torch.round(y) * 10 + torch.trunc(y)
        ),
        "_pow": lambda: torch.pow(y, torch.floor(x * 2)) + torch.pow(x.abs(), y),
        "_clamp_fma": lambda: x.clamp(-0.5, 0.5) * y + 1,
        "_dtype_at_compile_time": lambda: x + 1,
        "_nan_tests": lambda: (y > 3).double() + (y < -3).double() * 2,
        "_nan_comparisons": lambda: _torch_nan_comparisons(x, y),
        "_remainder": lambda: torch.fmod(x, y) + torch.fmod(x * 4, -1.5),
    }[name]()


def _torch_nan_comparisons(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    nan = torch.where(y > 3, math.nan, x)
    unequal = (nan != nan).double() + (nan != x).double() * 2
    return unequal + (nan == nan).double() * 4 + (nan <= x).double() * 8


ELEMENTWISE = [_floor, _erf_tanh_atan, _hyperbolic, _inverse, _small_arguments, _logs, _rounding]
ELEMENTWISE += [_pow, _clamp_fma, _dtype_at_compile_time, _nan_tests, _nan_comparisons]
ELEMENTWISE += [_remainder]


def _run(application, backend, x, y, out):
    kernel = ninetoothed.make(
        arrange,
        application,
        (Tensor(2), Tensor(2), Tensor(out.ndim)),
        backend=backend,
        device="cpu",
    )
    kernel(x, y, out)
    return out


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("function", ELEMENTWISE, ids=lambda f: f.__name__.strip("_"))
def test_elementwise(function, backend):
    x, y = inputs(seed=len(function.__name__))
    out = torch.full((ROWS, COLS), math.nan)
    _run(elementwise(function), backend, x, y, out)
    expected = _reference(function.__name__, x, y).float()
    torch.testing.assert_close(out, expected, rtol=2e-4, atol=2e-4, equal_nan=True)


def sum_keep_dims(x, y, out):
    out = ntl.sum(x, axis=1, keep_dims=True) + x.sum(1)[:, None] * 0.0 - y * 0.0  # noqa: F841


def arg_extremes(x, y, out):
    value, index = ntl.max(x, 1, return_indices=True)
    out = index * 100 + ntl.argmin(x, axis=1) + value * 0.0  # noqa: F841


def cumulative(x, y, out):
    out = ntl.cumsum(x, axis=1) + ntl.cumsum(y, 1, reverse=True) * 10.0  # noqa: F841


def sorted_rows(x, y, out):
    out = ntl.sort(x, 1) + ntl.sort(y, dim=1, descending=True) * 10.0  # noqa: F841


def flipped_and_gathered(x, y, out):
    columns = ntl.arange(0, 16)[None, :]
    index = (columns * 7) % 16 + ntl.zeros((4, 16), dtype=ntl.int32)
    out = ntl.flip(x, 1) + ntl.gather(y, index, 1) * 10.0  # noqa: F841


def typed_reductions(x, y, out):
    """i32, i64 and f64 reductions, the last along the first axis of a transposed tile (a
    block-wide reduction with an inner dim)."""
    whole = (y * 4.0).to(ntl.int32)
    rows = ntl.sum(whole, 1) * 1000 + ntl.max(whole.to(ntl.int64), 1)
    lowest = ntl.min(ntl.trans(x.to(ntl.float64)), 0)
    out = ((rows + lowest)[:, None] + x * 0.0).to(ntl.float32)  # noqa: F841


def _row_reference(name: str, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x, y = x.double(), y.double()
    columns = torch.arange(COLS)
    return {
        "sum_keep_dims": lambda: x.sum(1, keepdim=True) + 0 * y,
        "arg_extremes": lambda: (x.argmax(1) * 100 + x.argmin(1)).double(),
        "cumulative": lambda: x.cumsum(1) + y.flip(1).cumsum(1).flip(1) * 10,
        "sorted_rows": lambda: x.sort(1).values + y.sort(1, descending=True).values * 10,
        "flipped_and_gathered": lambda: x.flip(1) + y[:, (columns * 7) % 16] * 10,
        "typed_reductions": lambda: (
            (y * 4).int().sum(1) * 1000 + (y * 4).long().max(1).values + x.min(1).values
        )[:, None].expand(ROWS, COLS),
    }[name]()


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize(
    "application",
    [sum_keep_dims, arg_extremes, cumulative, sorted_rows, flipped_and_gathered, typed_reductions],
)
def test_along_axis(application, backend):
    x, y = inputs(seed=len(application.__name__))
    expected = _row_reference(application.__name__, x, y).float()
    out = torch.full(expected.shape, math.nan)
    _run(application, backend, x, y, out)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-4)


def nan_arg_extremes(x, y, out):
    value, index = ntl.max(x, 1, return_indices=True)
    out = index * 100 + ntl.argmin(x, axis=1) + ntl.where(value == value, 0.0, 0.5)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_arg_extremes_pass_nan_over(backend):
    """As the reductions (and NineToothed's answer, numpy's nanargmax in Triton's interpreter):
    the index of the extreme of the numbers; a row of NaN only has a NaN extreme, at index 0."""
    x, y = inputs(seed=13)
    x[::2, 3] = math.nan
    x[::3, :] = -100.0  # rows of ties: the first index
    x[1::3, 0] = math.nan
    x[5] = math.nan
    expected = torch.where(x.isnan(), -math.inf, x).argmax(1) * 100.0
    expected += torch.where(x.isnan(), math.inf, x).argmin(1) + x.isnan().all(1) * 0.5
    out = _run(nan_arg_extremes, backend, x, y, torch.full((ROWS,), math.nan))
    torch.testing.assert_close(out, expected.float(), rtol=0, atol=0)


def dot_keywords(x, y, out):
    acc = ntl.full((4, 4), 1.0, dtype=ntl.float32)
    product = ntl.dot(x, ntl.trans(y), acc=acc, input_precision="ieee", out_dtype=ntl.float32)
    out = product + ntl.dot(x, ntl.permute(y, (1, 0)), allow_tf32=False)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_dot_keywords(backend):
    """Each program multiplies its 4 rows of x by the transpose of its 4 rows of y."""
    x, y = (t[:36] for t in inputs(seed=3))  # whole blocks: every product has 4 rows
    out = torch.full((36, 4), math.nan)

    def arrangement(x, y, out):
        return x.tile((4, COLS)), y.tile((4, COLS)), out.tile((4, 4))

    tensors = (Tensor(2), Tensor(2), Tensor(2))
    ninetoothed.make(arrangement, dot_keywords, tensors, backend=backend)(x, y, out)
    expected = torch.cat(
        [2 * xb @ yb.T + 1 for xb, yb in zip(x.double().split(4), y.double().split(4), strict=True)]
    )
    torch.testing.assert_close(out, expected.float(), rtol=1e-5, atol=1e-4)


def bits(x, y, out):
    word = ntl.cast(x, ntl.int32, bitcast=True)
    key = word ^ ((word >> 31) & 0x7FFFFFFF)  # the order-preserving integer key of a float
    sign = ntl.cast(x, ntl.uint32, bitcast=True) >> 31
    back = ntl.cast(key ^ ((key >> 31) & 0x7FFFFFFF), ntl.float32, bitcast=True)
    half = ntl.cast(ntl.cast(y, ntl.float16), ntl.int16, bitcast=True)
    out = back + ntl.cast(sign, ntl.float32) * 10.0 + ntl.cast(~(half << 2) & 0xFF, ntl.float32)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_bits(backend):
    x, y = inputs(seed=11)
    out = _run(bits, backend, x, y, torch.full((ROWS, COLS), math.nan))
    half = y.half().view(torch.int16).int()
    expected = x + (x < 0).float() * 10 + ((~(half << 2)) & 0xFF).float()
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


def argument_types(x, mask, half, small, out, flags):
    out = ntl.where(mask, x * ntl.cast(half, ntl.float32), x + small)  # noqa: F841
    flags = (x > 0) & mask  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_argument_types(backend):
    """Bool buffers, an f16 and a u16 scalar: types a target may pass only as others."""

    def arrangement(*tensors):
        return tuple(t.tile((64,)) if t.ndim else t for t in tensors)

    tensors = (Tensor(1), Tensor(1), Tensor(0, dtype=ntl.float16), Tensor(0, dtype=ntl.uint16))
    tensors += (Tensor(1), Tensor(1))
    kernel = ninetoothed.make(arrangement, argument_types, tensors, backend=backend)
    x = torch.randn(300)
    mask = torch.rand(300) > 0.5
    out, flags = torch.full_like(x, math.nan), torch.zeros(300, dtype=torch.bool)
    kernel(x, mask, 0.5, 60000, out, flags)
    torch.testing.assert_close(out, torch.where(mask, x * 0.5, x + 60000))
    assert torch.equal(flags, (x > 0) & mask)


def sorted_specials(x, y, out):
    keys = ntl.cast(y * 1000.0, ntl.int64) * 4294967296 - ntl.cast(y, ntl.int64)  # wide integers
    out = ntl.sort(x, 1) + ntl.cast(ntl.sort(keys, 1, descending=True) // 4294967296, ntl.float32)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_sort_special_values(backend):
    """NaN sorts last (whatever its sign), infinities at the ends; wide integers exactly."""
    x, y = inputs(seed=5)
    x[::3, 2] = math.nan
    x[1::3, 5] = -math.nan
    x[::2, 7], x[::5, 9], x[:, 11] = math.inf, -math.inf, -0.0
    out = _run(sorted_specials, backend, x, y, torch.full((ROWS, COLS), math.nan))
    keys = (y.double() * 1000).long() * 4294967296 - y.long()
    high = torch.div(keys.sort(1, descending=True).values, 4294967296, rounding_mode="trunc")
    expected = x.sort(1).values + high.float()  # Triton's // truncates, as C's
    torch.testing.assert_close(out, expected, equal_nan=True)


def maybe_masked(x, mask, out, with_mask):
    out = x  # noqa: F841
    if with_mask:
        out = x + mask  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_buffer_the_kernel_never_touches_may_be_a_meta_tensor(backend):
    """ntops passes a placeholder on the meta device for an attention mask it does not use."""
    tensors = (Tensor(1), Tensor(1), Tensor(1), Tensor(0, constexpr=True))
    arrangement = lambda x, m, o, flag: (x.tile((64,)), m.tile((64,)), o.tile((64,)), flag)  # noqa: E731
    kernel = ninetoothed.make(arrangement, maybe_masked, tensors, backend=backend)
    x, out = torch.randn(100), torch.full((100,), math.nan)
    kernel(x, torch.empty(100, device="meta"), out, False)
    assert torch.equal(out, x)


def histogram(x, hist, ticket, n):
    inside = x.offsets(0) < n
    bins = ntl.cast(x * 4.0, ntl.int32)
    ntl.atomic_add(hist.source.data_ptr() + bins, 1, mask=inside)
    ntl.atomic_max(hist.source.data_ptr() + 8, bins, mask=inside)
    ticket = ntl.atomic_add(hist.source.data_ptr() + 9 + bins * 0, 1, mask=inside)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_atomics_through_pointers(backend):
    """A histogram (many elements adding to one address), a running maximum, and tickets: the
    old values an atomic add returns are 0, 1, 2, ... once each."""

    def arrangement(x, hist, ticket, n):
        return x.tile((64,)), hist.tile((-1,)), ticket.tile((64,)), n

    tensors = (Tensor(1), Tensor(1, dtype=ntl.int32), Tensor(1, dtype=ntl.int32), Tensor(0))
    kernel = ninetoothed.make(arrangement, histogram, tensors, backend=backend)
    x = torch.rand(300) * 1.99
    hist, ticket = torch.zeros(10, dtype=torch.int32), torch.full((300,), -1, dtype=torch.int32)
    kernel(x, hist, ticket, 300)
    bins = (x * 4).int()
    assert torch.equal(hist[:8], torch.bincount(bins, minlength=8).int())
    assert hist[8] == bins.max() and hist[9] == 300
    assert torch.equal(ticket.sort().values, torch.arange(300, dtype=torch.int32))


def flags(x, words, slots, olds, chain):
    bit = 1 << ntl.cast(x * 8.0, ntl.int32)
    offsets = x.offsets(0)
    inside = offsets < x.source.shape[0]
    word = words.source.data_ptr() + 0 * bit
    ntl.atomic_or(word, bit, mask=inside)
    ntl.atomic_and(word + 1, ~bit, mask=inside)
    ntl.atomic_xor(word + 2, bit + offsets, mask=inside)
    chain = ntl.atomic_xchg(word + 3, offsets, mask=inside)  # noqa: F841
    olds = ntl.atomic_xchg(slots.source.data_ptr() + offsets, bit * 3, mask=inside)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_bitwise_and_exchange_atomics(backend):
    """`atomic_or`/`and`/`xor` of many elements into one word; `atomic_xchg` into each element's
    own slot (the old values come back), and of every element's offset into one word: the old
    values and the last one left are the word's first value and the offsets, each once. (Triton's
    interpreter exchanges integers only.)"""

    def arrangement(x, words, slots, olds, chain):
        blocks = (t.tile((64,)) for t in (slots, olds, chain))
        return x.tile((64,)), words.tile((-1,)), *blocks

    int32 = ntl.int32
    tensors = (Tensor(1), *(Tensor(1, dtype=int32) for _ in range(4)))
    kernel = ninetoothed.make(arrangement, flags, tensors, backend=backend)
    x = torch.rand(150)
    words = torch.tensor([0, -1, 0, -5], dtype=torch.int32)
    slots = torch.randint(-100, 100, (150,), dtype=torch.int32)
    olds, chain = (torch.full((150,), -7, dtype=torch.int32) for _ in range(2))
    expected_olds = slots.clone()
    kernel(x, words, slots, olds, chain)
    bits = 1 << (x * 8).int()
    union = functools.reduce(operator.or_, bits.tolist())
    xor = functools.reduce(operator.xor, (bits + torch.arange(150, dtype=torch.int32)).tolist())
    assert words[:3].tolist() == [union, ~union, xor]
    assert torch.equal(slots, bits * 3) and torch.equal(olds, expected_olds)
    assert sorted([*chain.tolist(), words[3].item()]) == [-5, *range(150)]


def claiming(x, slots, olds):
    return x.tile((64,)), slots.tile((-1,)), olds.tile((64,))


def claims(x, slots, olds):
    bins = ntl.cast(x * 4.0, ntl.int32)
    olds = ntl.atomic_cas(slots.source.data_ptr() + bins, -1, x.offsets(0))  # noqa: F841


CLAIMS = (Tensor(1), Tensor(1, dtype=ntl.int32), Tensor(1, dtype=ntl.int32))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_compare_and_swap_claims_each_slot_once(backend):
    """Every element tries to claim its bin's slot (free: -1) with its offset: one per bin wins
    and sees -1, the others see the winner, and the slot holds it."""

    kernel = ninetoothed.make(claiming, claims, CLAIMS, backend=backend)
    x = torch.rand(256) * 1.99  # a whole number of blocks: Triton's atomic_cas takes no mask
    slots, olds = (
        torch.full((10,), -1, dtype=torch.int32),
        torch.full((256,), -7, dtype=torch.int32),
    )
    kernel(x, slots, olds)
    bins = (x * 4).int()
    winners = olds == -1
    assert torch.equal(torch.sort(bins[winners]).values, torch.unique(bins))
    assert torch.equal(slots[bins[winners]], torch.arange(256, dtype=torch.int32)[winners])
    assert torch.equal(olds[~winners], slots[bins[~winners]])
    assert torch.equal(bins[slots[bins]], bins) and (slots[8:] == -1).all()


def compare_and_swap_floats(x, y):
    y = ntl.atomic_cas(x.source.data_ptr() + x.offsets(0), 0.0, 1.0)  # noqa: F841


def test_compare_and_swap_of_floats_is_refused_with_the_fix():
    arrangement = lambda x, y: (x.tile((64,)), y.tile((64,)))  # noqa: E731
    kernel = ninetoothed.make(arrangement, compare_and_swap_floats, (Tensor(1), Tensor(1)))
    with pytest.raises(CompileError, match=r"atomic cas takes 16-, 32- or 64-bit integers.*view"):
        kernel(torch.zeros(64), torch.zeros(64))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_atomics_on_the_gpu_forms():
    """CUDA C++ updates by compare-and-swap (PTX `atom...cas`), TileLang with its own atomics;
    TVM's TIR has none to spell on CUDA and says so."""
    from compiler.runtime.cuda_build import compile_ptx
    from compiler.runtime.tilelang_launcher import cuda_source

    def arrangement(x, hist, ticket, n):
        return x.tile((64,)), hist.tile((-1,)), ticket.tile((64,)), n

    tensors = (Tensor(1), Tensor(1, dtype=ntl.int32), Tensor(1, dtype=ntl.int32), Tensor(0))
    args = (
        torch.rand(300),
        torch.zeros(10, dtype=torch.int32),
        torch.zeros(300, dtype=torch.int32),
    )

    def lowered(backend):
        handle = ninetoothed.make(arrangement, histogram, tensors, backend=backend, device="cuda")
        return handle.compile(*args, 300)

    cuda = lowered("cuda")
    assert ".cas." in compile_ptx(cuda.source, cuda.kernel_name)
    assert "atomic" in cuda_source(lowered("tilelang")).lower()
    with pytest.raises(Exception, match="mem.atomic is not legal for target tvm"):
        lowered("tvm")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_bitwise_and_exchange_atomics_on_the_gpu_forms():
    """CUDA C++ builds every kind for sm_90 (compare-and-swap loops); TileLang's CUDA form has no
    atomic giving the old value for them, and says so with the op and the fix."""
    from compiler.backends.emitter import EmitError
    from compiler.runtime.cuda_build import compile_ptx

    def arrangement(x, words, slots, olds, chain):
        blocks = (t.tile((64,)) for t in (slots, olds, chain))
        return x.tile((64,)), words.tile((-1,)), *blocks

    tensors = (Tensor(1), *(Tensor(1, dtype=ntl.int32) for _ in range(4)))
    args = (torch.rand(150), *(torch.zeros(n, dtype=torch.int32) for n in (4, 150, 150, 150)))

    def lowered(backend):
        handle = ninetoothed.make(arrangement, flags, tensors, backend=backend, device="cuda")
        return handle.compile(*args)

    cuda = lowered("cuda")
    assert compile_ptx(cuda.source, cuda.kernel_name).count(".cas.") >= 5
    with pytest.raises(EmitError, match=r"mem.atomic.*atomic or, which TileLang's CUDA form lacks"):
        lowered("tilelang")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_compare_and_swap_on_the_gpu_forms():
    """CUDA C++ spells it as the hardware's compare-and-swap; TileLang's CUDA form has none giving
    the old value, and says so."""
    from compiler.backends.emitter import EmitError
    from compiler.runtime.cuda_build import compile_ptx

    args = (torch.rand(256), *(torch.zeros(n, dtype=torch.int32) for n in (10, 256)))
    handles = {
        backend: ninetoothed.make(claiming, claims, CLAIMS, backend=backend, device="cuda")
        for backend in ("cuda", "tilelang")
    }
    cuda = handles["cuda"].compile(*args)
    assert "atom.global.cas.b32" in compile_ptx(cuda.source, cuda.kernel_name)
    with pytest.raises(EmitError, match=r"atomic cas, which TileLang's CUDA form lacks"):
        handles["tilelang"].compile(*args)
