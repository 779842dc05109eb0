"""The TVM backend on the kernel suite: every kernel lowers through the default pipeline to TIR,
runs on the CPU (LLVM) against torch, and its CUDA form (program ids bound to `blockIdx.x`) lowers
to CUDA C that nvcc compiles for sm_90. Nothing runs on a GPU here."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import get_target, lower_unified_ssa_artifact
from compiler.dsl import Tensor
from compiler.ir import parse_kernel
from compiler.runtime.tvm_launcher import cuda_sources
from compiler.suite import SUITE
from compiler.suite.checking import check

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")


@functools.cache
def checked(name: str):
    """Lowered once per kernel, run on fresh inputs with poisoned outputs, compared with torch."""
    return check(SUITE[name], backend="tvm")


@pytest.mark.parametrize("name", sorted(SUITE))
def test_suite_kernel_runs_on_the_cpu(name):
    result = checked(name)
    assert result.passed, f"{name}: max error {result.max_error}"
    assert "T.serial(0, " in result.artifact.source  # the programs are a loop on the CPU


@pytest.fixture(scope="module")
def cuda_forms() -> dict[str, str]:
    """Each kernel lowered for CUDA with the block sizes its CPU form chose, built in one batch."""
    artifacts = []
    for name in sorted(SUITE):
        cpu = checked(name).artifact
        kernel, schedule = parse_kernel(cpu.initial_ssa), dict(cpu.schedule)
        artifacts.append(lower_unified_ssa_artifact(kernel, "tvm", device="cuda", options=schedule))
    assert all('thread="blockIdx.x"' in artifact.source for artifact in artifacts)
    return dict(zip(sorted(SUITE), cuda_sources(artifacts, arch="sm_90"), strict=True))


@needs_nvcc
@pytest.mark.parametrize("name", sorted(SUITE))
def test_suite_kernel_compiles_for_cuda(name, cuda_forms):
    assert f"__global__ void {name}_kernel(" in cuda_forms[name]


def test_the_cuda_record_differs_only_in_how_programs_run_and_what_it_computes_with():
    cpu, cuda = get_target("tvm", "cpu"), get_target("tvm", "cuda")
    assert cuda.device == "cuda"
    # Atomics are spelled only where one program runs at a time (a read, then a store).
    assert set(cpu.spelling) - set(cuda.spelling) == {"mem.atomic"}
    assert all(cuda.spelling[op] == cpu.spelling[op] for op in cuda.spelling)
    # bf16 math: through LLVM's legalization on the CPU (which fails on a bf16 Let) it is held as
    # bits and computed in f32; CUDA computes with it. LLVM takes 64-bit overflow as impossible,
    # CUDA C signed overflow only (as TileLang's C and CUDA do).
    assert cuda.capability("overflow_free_64") == {"i64"}
    assert {
        **cuda.capabilities,
        "stored_only_dtypes": {"bf16"},
        "overflow_free_64": {"i64", "u64"},
    } == cpu.capabilities
    assert cpu.syntax.grid_open != cuda.syntax.grid_open


def tripled_and_divided(x, out):
    out = (x * 3) // 3  # noqa: F841


@needs_nvcc
def test_the_cuda_form_keeps_a_64_bit_product_that_may_wrap(tmp_path):
    """nvcc takes `int64_t` overflow as impossible and folded `(x * 3) / 3` to `x`: the CUDA form
    computes i64 products on 32-bit halves (ssa.wrap_64_bit_arithmetic), which the PTX keeps."""
    kernel = ninetoothed.make(
        lambda x, out: (x.tile((64,)), out.tile((64,))),
        tripled_and_divided,
        (Tensor(1), Tensor(1)),
        backend="tvm",
        device="cuda",
    )
    artifact = kernel.compile(*(torch.ones(200, dtype=torch.int64),) * 2)
    (source,) = cuda_sources([artifact], arch="sm_90")
    (tmp_path / "kernel.cu").write_text(source)
    ptx = tmp_path / "kernel.ptx"
    command = ["nvcc", "-ptx", "-arch=sm_90", "-O3", str(tmp_path / "kernel.cu"), "-o", str(ptx)]
    subprocess.run(command, check=True, capture_output=True)
    assert re.search(r"\bmul\.(lo|hi)\.[su]64\b", ptx.read_text())


def shifted(x, out):
    out = x << 3  # noqa: F841


def test_the_cuda_form_lowers_a_64_bit_shift():
    """A shift of i64 masks its bits with the u64 constant 2^64 - 1 >> count: made of 32-bit halves
    (as the int64 -1 reinterpreted it failed TVM's CUDA lowering, which narrowed the -1 to 32
    bits); the CPU form shifts as torch does."""
    handle = ninetoothed.make(
        lambda x, out: (x.tile((64,)), out.tile((64,))),
        shifted,
        (Tensor(1, dtype=ninetoothed.int64), Tensor(1, dtype=ninetoothed.int64)),
        backend="tvm",
        device="cuda",
    )
    (source,) = cuda_sources([handle.compile(*(torch.ones(200, dtype=torch.int64),) * 2)], "sm_90")
    assert 'extern "C" __global__' in source
    x = torch.randint(-(2**40), 2**40, (200,), dtype=torch.int64)
    out = torch.zeros_like(x)
    ninetoothed.make(
        lambda x, out: (x.tile((64,)), out.tile((64,))),
        shifted,
        (Tensor(1), Tensor(1)),
        backend="tvm",
    )(x, out)
    assert torch.equal(out, x << 3)
