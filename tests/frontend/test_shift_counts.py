"""Shifts are defined for every count, as on a GPU (PTX clamps the count to the width) and in
Triton's interpreter: past the width or below 0 a left shift gives 0 and a right shift the sign
(0 for unsigned). C's and LLVM's shifts are undefined there: the CUDA C++ form gave x86's masked
count (-7 << 32 was -7), TVM's different bits on each run, TileLang an internal error."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

SIZE = 100


def shifted(x, count, left, right, fixed):
    left = x << count  # noqa: F841
    right = x >> count  # noqa: F841
    fixed = (x << 33) + (x >> 40) + (x >> 3) + (x << 8)  # noqa: F841


def _shift(value: int, count: int, bits: int, unsigned: bool, left: bool) -> int:
    """Python's own shift of the exact value, defined for any count, in the type's range."""
    if left:
        result = value << count if 0 <= count < bits else 0
    else:
        result = value >> count if count >= 0 else value >> bits
    span = 1 << bits
    result %= span
    return result if unsigned or result < span >> 1 else result - span


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8], ids=str)
def test_shift_counts_past_the_width(backend, dtype):
    g = torch.Generator().manual_seed(3)
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, (SIZE,), generator=g, dtype=torch.int64).to(dtype)
    count = torch.randint(0 if info.min == 0 else -3, 41, (SIZE,), generator=g).to(dtype)
    count[:4] = torch.tensor([info.bits - 1, info.bits, 0, 40]).to(dtype)
    outputs = [torch.full((SIZE,), 77, dtype=dtype) for _ in range(3)]
    kernel = ninetoothed.make(
        lambda *ts: tuple(t.tile((32,)) for t in ts),
        shifted,
        tuple(Tensor(1, dtype=getattr(ntl, str(dtype).split(".")[1])) for _ in range(5)),
        backend=backend,
    )
    kernel(x, count, *outputs)
    bits, unsigned = info.bits, info.min == 0
    values, counts = x.tolist(), count.tolist()

    def expected(function):
        return torch.tensor([function(v, c) for v, c in zip(values, counts, strict=True)])

    left = expected(lambda v, c: _shift(v, c, bits, unsigned, left=True))
    right = expected(lambda v, c: _shift(v, c, bits, unsigned, left=False))
    fixed = expected(
        lambda v, _: sum(_shift(v, c, bits, unsigned, left) for c, left in _FIXED) % (1 << bits)
    )
    fixed = torch.where(fixed >= (1 << bits - 1), fixed - (0 if unsigned else 1 << bits), fixed)
    for out, want in zip(outputs, (left, right, fixed), strict=True):
        assert torch.equal(out.long(), want)


_FIXED = ((33, True), (40, False), (3, False), (8, True))
