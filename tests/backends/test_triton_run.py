"""Hand-written, already-lowered IR emitted to Triton and run (CPU interpreter, or GPU): each
kernel matches torch on fresh random inputs with ragged sizes and NaN-poisoned outputs."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from conftest import poisoned, triton_artifact

from compiler.runtime import launch


@pytest.fixture
def gen(request):
    return torch.Generator().manual_seed(hash(request.node.name) % 2**31)


@pytest.mark.parametrize("n", [1, 77, 1000])
def test_masked_add(n, gen):
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    out = poisoned(n)
    launch(triton_artifact("masked_add"), {"x": x, "y": y, "out": out, "n": n})
    torch.testing.assert_close(out, x + y)


@pytest.mark.parametrize("rows, cols", [(1, 1), (5, 100), (3, 128)])
def test_rows_exp2_normalized(rows, cols, gen):
    x = torch.randn(rows, cols + 3, generator=gen)[:, :cols]  # row stride != cols
    out = poisoned(rows, cols)
    bindings = {"x": x, "out": out, "n_rows": rows, "n_cols": cols}
    bindings |= {"x_stride_0": x.stride(0), "out_stride_0": out.stride(0)}
    launch(triton_artifact("rows_exp2_normalized"), bindings)
    torch.testing.assert_close(out, torch.softmax(x, dim=1))


@pytest.mark.parametrize("m, n, k", [(16, 16, 16), (37, 45, 29), (5, 70, 3)])
def test_tiled_dot_loop(m, n, k, gen):
    a = torch.randn(m, k, generator=gen)
    b = torch.randn(n, k, generator=gen).t()  # a transposed view: strides (1, k)
    c = poisoned(m, n)
    bindings = {"a": a, "b": b, "c": c, "M": m, "N": n, "K": k}
    for name, tensor in (("a", a), ("b", b), ("c", c)):
        bindings |= {f"{name}_stride_{d}": tensor.stride(d) for d in range(2)}
    launch(triton_artifact("tiled_dot_loop"), bindings)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)


def test_parity_branch(gen):
    n = 77  # three programs: even, odd, even
    x = torch.randn(n, generator=gen)
    out, flags = poisoned(n), torch.full((4,), -7, dtype=torch.int32)
    launch(triton_artifact("parity_branch"), {"x": x, "out": out, "flags": flags, "n": n})
    even = (torch.arange(n) // 32) % 2 == 0
    torch.testing.assert_close(out, torch.where(even, 2 * x, -x))
    assert flags.tolist() == [1, -1, -7, -7]  # only programs 0 and 1 write their flag


@pytest.mark.parametrize("n", [5, 200])
def test_leaky_clamp_f16(n, gen):
    x = (2 * torch.randn(n, generator=gen)).half()
    out = poisoned(n, dtype=torch.float16)
    launch(triton_artifact("leaky_clamp_f16"), {"x": x, "out": out, "alpha": 0.1, "n": n})
    xf = x.float()
    expected = torch.where(xf > 0, xf, 0.1 * xf).clamp(-0.5, 1.5).half()
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize("steps", [0, 1, 4, 5])
def test_swap_loop(steps, gen):
    n = 50
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    outs = {name: poisoned(n) for name in ("out_x", "out_y", "out_s")}
    launch(triton_artifact("swap_loop"), {"x": x, "y": y, **outs, "steps": steps, "n": n})
    first, second = (x, y) if steps % 2 == 0 else (y, x)
    torch.testing.assert_close(outs["out_x"], first)
    torch.testing.assert_close(outs["out_y"], second)
    torch.testing.assert_close(outs["out_s"], (steps + 1) // 2 * x + steps // 2 * y)


@pytest.mark.parametrize("rows, cols", [(16, 8), (11, 3)])
def test_tile_transpose(rows, cols, gen):
    x = torch.randn(cols, rows, generator=gen).t()  # non-contiguous input
    out, flat = poisoned(cols, rows), poisoned(128)
    bindings = {"x": x, "out": out, "flat": flat, "R": rows, "C": cols}
    bindings |= {"x_stride_0": x.stride(0), "x_stride_1": x.stride(1), "out_stride_0": rows}
    launch(triton_artifact("tile_transpose"), bindings)
    torch.testing.assert_close(out, x.t())
    padded = torch.zeros(16, 8)
    padded[:rows, :cols] = x
    torch.testing.assert_close(flat, padded.t().reshape(-1))


def test_launches_from_several_threads_take_turns_in_the_interpreter():
    """Triton's interpreter keeps the running program's grid in globals: launches from threads
    at once raised (`x >= grid_dim[0]`) or left blocks unwritten."""
    artifact = triton_artifact("masked_add")

    def add(seed: int) -> bool:
        gen = torch.Generator().manual_seed(seed)
        x, y, out = torch.randn(700, generator=gen), torch.randn(700, generator=gen), poisoned(700)
        launch(artifact, {"x": x, "y": y, "out": out, "n": 700})
        return torch.equal(out, x + y)

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(add, range(40)))
