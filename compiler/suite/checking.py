"""Compile a suite kernel with this compiler, run it on fresh random inputs whose outputs are
poisoned, and compare with torch. Shared by the tests and `ntc demo`."""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

import compiler.dsl
from compiler.suite import SuiteKernel, load_program
from compiler.suite.loader import bound_arrangement


@dataclass(frozen=True)
class CheckResult:
    name: str
    backend: str
    passed: bool
    seconds: float
    max_error: float
    artifact: object


def build(kernel: SuiteKernel, backend: str, device: str = "cpu"):
    module = load_program(kernel.path, compiler.dsl)
    arrangement = bound_arrangement(module.arrangement, kernel.arrangement_kwargs)
    handle = compiler.dsl.make(
        arrangement, module.application, module.tensors, backend=backend, device=device
    )
    handle.kernel_name = kernel.name
    return handle


def check(
    kernel: SuiteKernel, backend: str = "triton", seed: int = 0, device: str = "cpu"
) -> CheckResult:
    """`device`: where the kernel runs ("cuda" needs a GPU); torch computes the reference on the
    CPU either way."""
    start = time.perf_counter()
    handle = build(kernel, backend, device)
    args = kernel.make_args(seed)
    expected = kernel.reference(args)
    args = [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]
    handle(*args, **kernel.call_kwargs)
    passed, worst = True, 0.0
    for index, want in zip(kernel.outputs, expected, strict=True):
        got = args[index].cpu()
        if got.dtype.is_floating_point:
            error = (got.double() - want.double()).abs().nan_to_num(float("inf")).max().item()
        else:
            error = float((got != want).sum().item())
        worst = max(worst, error)
        passed &= torch.allclose(got.double(), want.double(), rtol=kernel.rtol, atol=kernel.atol)
    seconds = time.perf_counter() - start
    return CheckResult(kernel.name, backend, passed, seconds, worst, handle.last)
