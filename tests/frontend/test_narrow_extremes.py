"""`max` and `min` of a dtype narrower than 32 bits, as Triton's: without indices they compute in
i32 (integers, unsigned and bools too) or f32 (floats), so what follows does not wrap or
overflow in the narrow type; with indices the value keeps its dtype."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

ROWS, COLS = 5, 8


def arrangement(u, s, h, b, *outputs):
    return *(t.tile((1, COLS)) for t in (u, s, h, b)), *(t.tile((1,)) for t in outputs)


def application(u, s, h, b, up, down, truths, below, high, low, kept, index):
    up = ntl.max(u, 1) + 1  # noqa: F841
    down = ntl.min(s, 1) - 100  # noqa: F841
    truths = ntl.max(b, 1) + ntl.max(b, 1)  # noqa: F841
    below = ntl.min(u, 1) - 1  # noqa: F841
    high = ntl.max(h, 1) * 30000.0  # noqa: F841
    low = ntl.min(h, 1) * 30000.0  # noqa: F841
    value, at = ntl.max(u, 1, return_indices=True)
    kept = value + 1  # noqa: F841
    index = at  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_narrow_extremes_widen_as_tritons(backend):
    g = torch.Generator().manual_seed(7)
    u = torch.randint(0, 256, (ROWS, COLS), generator=g, dtype=torch.uint8)
    u[:, 3] = 255
    u[0, 0] = 0
    s = torch.randint(-128, 128, (ROWS, COLS), generator=g, dtype=torch.int8)
    s[:, 5] = -128
    h = (torch.rand(ROWS, COLS, generator=g) * 120000 - 60000).half()
    b = torch.rand(ROWS, COLS, generator=g) > 0.5
    b[1] = False
    ints = [torch.full((ROWS,), -99, dtype=torch.int32) for _ in range(4)]
    floats = [torch.full((ROWS,), float("nan")) for _ in range(2)]
    kept, index = torch.full((ROWS,), -99, dtype=torch.int32), torch.full((ROWS,), -99)
    outputs = [*ints, *floats, kept, index]
    dtypes = [ntl.uint8, ntl.int8, ntl.float16, ntl.int1] + [ntl.int32] * 4
    dtypes += [ntl.float32, ntl.float32, ntl.int32, ntl.int64]
    tensors = tuple(Tensor(2 if i < 4 else 1, dtype=d) for i, d in enumerate(dtypes))
    kernel = ninetoothed.make(arrangement, application, tensors, backend=backend)
    kernel(u, s, h, b, *outputs)
    wide_u, wide_s = u.int(), s.int()
    expected = [wide_u.amax(1) + 1, wide_s.amin(1) - 100, b.int().amax(1) * 2, wide_u.amin(1) - 1]
    for out, want in zip(ints, expected, strict=True):
        assert torch.equal(out, want)
    torch.testing.assert_close(floats[0], h.float().amax(1) * 30000)
    torch.testing.assert_close(floats[1], h.float().amin(1) * 30000)
    assert torch.equal(kept, (u.amax(1) + 1).int())  # u8: 255 + 1 wraps to 0
    assert torch.equal(index, u.int().argmax(1))
