"""Block sizes: chosen by `ssa.select_schedule` unless the caller gives them."""

import torch

import compiler.dsl
from compiler.suite import SUITE, load_program


def matmul_handle():
    module = load_program(SUITE["matmul"].path, compiler.dsl)
    return compiler.dsl.make(module.arrangement, module.application, module.tensors), module


def test_schedule_pass_picks_block_sizes_and_the_kernel_is_right():
    handle, _ = matmul_handle()
    a, b = torch.randn(37, 45), torch.randn(45, 29)
    out = torch.full((37, 29), float("nan"))
    handle(a, b, out)
    torch.testing.assert_close(out, a @ b, rtol=1e-4, atol=1e-4)
    entry = next(e for e in handle.trace if e["pass"] == "ssa.select_schedule")
    assert "schedule = [[" in entry["ir"] and "index.meta" not in entry["ir"]


def test_caller_given_block_sizes_win():
    handle, module = matmul_handle()
    names = {s.name: s for s in (module.BLOCK_SIZE_M, module.BLOCK_SIZE_N, module.BLOCK_SIZE_K)}
    a, b = torch.randn(20, 33), torch.randn(33, 18)
    out = torch.full((20, 18), float("nan"))
    handle(a, b, out, **{name: 32 for name in names})
    torch.testing.assert_close(out, a @ b, rtol=1e-4, atol=1e-4)
    assert "tile<f32[32, 32]>" in handle.ssa
