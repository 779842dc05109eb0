"""Block sizes: chosen by `ssa.select_schedule` unless the caller gives them."""

import re

import pytest
import torch

import compiler.dsl
from compiler.dsl import Symbol, Tensor
from compiler.errors import CompileError
from compiler.passes.base import PassError
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


def test_a_block_size_given_as_a_non_integer_is_refused_naming_it():
    handle, module = matmul_handle()
    a, b, out = torch.randn(20, 33), torch.randn(33, 18), torch.empty(20, 18)
    name = module.BLOCK_SIZE_M.name
    for value in ([32], 32.0, "32"):
        with pytest.raises(
            CompileError, match=rf"{name}={re.escape(repr(value))} is not an integer"
        ):
            handle(a, b, out, **{name: value})
    handle(a, b, out, **{name: torch.tensor(64)})  # an integer in any type that has __index__
    torch.testing.assert_close(out, a @ b, rtol=1e-4, atol=1e-4)
    assert f"{name}=64 (given)" in handle.last.ssa


@pytest.mark.parametrize("backend", ["triton", "cuda"])
def test_a_block_size_not_a_power_of_two_is_refused_where_the_target_needs_one(backend):
    module = load_program(SUITE["vector_add"].path, compiler.dsl)
    handle = compiler.dsl.make(
        module.arrangement, module.application, module.tensors, backend=backend, device="cpu"
    )
    x, y = torch.randn(100), torch.randn(100)
    out = torch.full((100,), float("nan"))
    (name,) = handle.meta_names
    if backend == "triton":  # tl.arange takes powers of two only
        with pytest.raises(PassError, match=f"{name}=48 sizes tiles.*give {name}=32 or {name}=64"):
            handle(x, y, out, **{name: 48})
    else:
        handle(x, y, out, **{name: 48})
        torch.testing.assert_close(out, x + y)


@pytest.mark.parametrize("first, second", [("A", "Z"), ("Z", "A")])
def test_block_sizes_are_listed_as_they_appear_whatever_they_are_called(first, second):
    rows, columns = Symbol(first, meta=True), Symbol(second, meta=True)

    def arrangement(x, y, rows=rows, columns=columns):
        return x.tile((rows, columns)), y.tile((rows, columns))

    def application(x, y):
        y = x  # noqa: F841

    handle = compiler.dsl.make(arrangement, application, (Tensor(2), Tensor(2)), device="cpu")
    x, y = torch.randn(40, 70), torch.empty(40, 70)
    artifact = handle.compile(x, y, **{second: 64, first: 32})
    assert f'meta = [["{first}", 32, 1024], ["{second}", 32, 1024]]' in artifact.initial_ssa
    assert f'schedule_given = ["{first}", "{second}"]' in artifact.ssa
