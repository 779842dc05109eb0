"""The CUDA C++ launcher on hand-written kernels in the emitter's form (they test the launcher, the
host shim and the builds, not the emitter): run on the CPU through the shim against torch, and
compiled by nvcc for sm_90 into the GPU library and PTX (built, never run: no GPU here)."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import pytest
import torch
from conftest import poisoned

from compiler.backends import Artifact
from compiler.runtime import LaunchError, launch
from compiler.runtime.cuda_build import BuildError, build_library, compile_ptx

VECTOR_ADD = """\
// ssa-sha256: 0
extern "C" __global__ void vector_add(
    float* __restrict__ x, long long x_size_0, long long x_stride_0, float* __restrict__ y,
    long long y_stride_0, float* __restrict__ z, long long z_stride_0) {
  long long v0 = 64LL;
  long long v1 = (long long)blockIdx.x;
  __shared__ float v2[64];
  for (long long v3 = (long long)threadIdx.x; v3 < v0; v3 += (long long)blockDim.x) {
    long long v4 = v1 * v0 + v3;
    bool v5 = v4 < x_size_0;
    float v6 = (v5 ? x[v4 * x_stride_0] : (float)(0.0));
    float v7 = (v5 ? y[v4 * y_stride_0] : (float)(0.0));
    v2[v3] = v6 + v7;
  }
  __syncthreads();
  for (long long v8 = (long long)threadIdx.x; v8 < v0; v8 += (long long)blockDim.x) {
    long long v9 = v1 * v0 + v8;
    bool v10 = v9 < x_size_0;
    if (v10) { z[v9 * z_stride_0] = v2[v8]; }
  }
}
"""

# One block per row: threads stage the row in shared memory, then every thread sums it (the
# serial sum after a barrier is what a reduction over a staged tile becomes).
ROW_SUM = """\
// ssa-sha256: 0
extern "C" __global__ void row_sum(
    float* __restrict__ x, long long x_size_1, long long x_stride_0, long long x_stride_1,
    float* __restrict__ out, long long out_stride_0) {
  long long v0 = 32LL;
  long long v1 = (long long)blockIdx.x;
  __shared__ float v2[32];
  for (long long v3 = (long long)threadIdx.x; v3 < v0; v3 += (long long)blockDim.x) {
    bool v4 = v3 < x_size_1;
    v2[v3] = (v4 ? x[v1 * x_stride_0 + v3 * x_stride_1] : (float)(0.0));
  }
  __syncthreads();
  float v5[1];
  v5[0] = 0.0f;
  for (long long v6 = 0LL; v6 < v0; v6 += 1LL) {
    v5[0] = v5[0] + v2[v6];
  }
  out[v1 * out_stride_0] = v5[0];
}
"""

# Scalars of every width the entry lays out, and half precision computed in f32.
SCALE = """\
// ssa-sha256: 0
extern "C" __global__ void scale(
    __half* __restrict__ x, long long x_size_0, __half* __restrict__ out, __half factor,
    double offset, int8_t shift, bool negate, __nv_bfloat16* __restrict__ b,
    __nv_bfloat16 bias) {
  long long v0 = (long long)blockIdx.x;
  bool v1 = v0 < x_size_0;
  float v2 = (float)(v1 ? x[v0] : (__half)(0.0f));
  float v3 = v2 * (float)factor + (float)offset + (float)shift + (float)b[0] + (float)bias;
  float v4 = negate ? -v3 : v3;
  if (v1) { out[v0] = (__half)(exp(v4 * 0.0f) * rsqrt(4.0f) * 2.0f * v4); }
}
"""


def artifact(source: str, name: str, args: dict[str, str], grid: str, **changes) -> Artifact:
    """`args`: name -> dtype, buffers written as `*<dtype>`."""
    kinds = [(n, "buffer" if d[0] == "*" else d) for n, d in args.items()]
    record = Artifact(
        backend="cuda",
        device="cpu",
        kernel_name=name,
        source=source,
        ssa="",
        trace=[],
        initial_ssa="",
        args=kinds,
        arg_dtypes={n: d.lstrip("*") for n, d in args.items()},
        grid=grid,
        schedule={},
        num_warps=None,
        num_stages=None,
        ssa_hash="0",
    )
    return dataclasses.replace(record, **changes)


ADD_ARGS = {
    "x": "*f32",
    "x_size_0": "index",
    "x_stride_0": "index",
    "y": "*f32",
    "y_stride_0": "index",
    "z": "*f32",
    "z_stride_0": "index",
}


@pytest.fixture
def add():
    return artifact(VECTOR_ADD, "vector_add", ADD_ARGS, "(x_size_0 + 63) // 64")


def add_bindings(x, y, z):
    return {
        "x": x,
        "x_size_0": x.shape[0],
        "x_stride_0": x.stride(0),
        "y": y,
        "y_stride_0": y.stride(0),
        "z": z,
        "z_stride_0": z.stride(0),
    }


@pytest.mark.parametrize("n", [1, 64, 200])
def test_vector_add_runs_every_block(add, n):
    x, y, z = torch.randn(n), torch.randn(n), poisoned(n)
    launch(add, add_bindings(x, y, z))
    assert torch.equal(z, x + y)


def test_strided_views_at_storage_offsets(add):
    x = torch.randn(3, 150)[1, 1::3]  # 50 elements: storage offset 151, stride 3
    y = torch.randn(300)[1::6]
    z = poisoned(50, 2)[:, 1]
    launch(add, add_bindings(x, y, z))
    assert torch.equal(z, x + y)


def test_row_sum_stages_rows_in_shared_memory():
    args = {
        "x": "*f32",
        "x_size_1": "index",
        "x_stride_0": "index",
        "x_stride_1": "index",
        "out": "*f32",
        "out_stride_0": "index",
    }
    kernel = artifact(ROW_SUM, "row_sum", args, "rows")
    x, out = torch.randn(30, 5).t(), poisoned(5)  # column-major: rows of 30 with stride 1
    values = {"x": x, "x_size_1": 30, "x_stride_0": 1, "x_stride_1": 5, "out": out}
    launch(kernel, values | {"out_stride_0": 1, "rows": 5})
    torch.testing.assert_close(out, x.sum(1))


def test_scalars_and_half_precision():
    args = {
        "x": "*f16",
        "x_size_0": "index",
        "out": "*f16",
        "factor": "f16",
        "offset": "f64",
        "shift": "i8",
        "negate": "i1",
        "b": "*bf16",
        "bias": "bf16",
    }
    kernel = artifact(SCALE, "scale", args, "x_size_0")
    x, out = torch.randn(37, dtype=torch.float16), poisoned(37, dtype=torch.float16)
    b = torch.tensor([0.375], dtype=torch.bfloat16)
    values = {"x": x, "x_size_0": 37, "out": out, "factor": 1.5, "offset": 0.25, "b": b}
    launch(kernel, values | {"shift": -3, "negate": True, "bias": 0.0625})
    expected = -(x.float() * 1.5 + 0.25 - 3 + 0.375 + 0.0625)
    torch.testing.assert_close(out, expected.half())


def test_empty_grid_runs_nothing(add):
    x = torch.randn(0)
    launch(add, add_bindings(x, x, x))  # no build, no launch: CUDA refuses an empty grid


def test_tensors_on_another_device_are_refused(add):
    gpu = dataclasses.replace(add, device="cuda")
    x = torch.randn(4)
    with pytest.raises(LaunchError, match="argument 'x' is on cpu but this cuda kernel runs on"):
        launch(gpu, add_bindings(x, x, x))


def test_builds_are_cached(add, monkeypatch):
    first = build_library(add.source, add.kernel_name, "cpu")

    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(subprocess, "run", refuse)
    assert build_library(add.source, add.kernel_name, "cpu") == first


def test_a_damaged_build_is_built_again(add, tmp_path, monkeypatch):
    """A library cut short crashed the process that loaded it (SIGBUS): builds are sealed with
    their digest, and one that does not match is compiled again."""
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    library = build_library(add.source, add.kernel_name, "cpu")
    whole = library.read_bytes()
    library.write_bytes(whole[: len(whole) // 2])
    assert build_library(add.source, add.kernel_name, "cpu") == library
    assert library.read_bytes() == whole


def test_compile_errors_name_the_kernel_and_the_file():
    broken = VECTOR_ADD.replace("v6 + v7", "v6 + undeclared")
    with pytest.raises(
        BuildError, match=r"(?s)@vector_add: g\+\+ rejected .*\.cu \(status 1\):\n.*undeclared"
    ):
        build_library(broken, "vector_add", "cpu")


def test_a_compiler_killed_says_so_and_blames_no_spelling(add, tmp_path, monkeypatch):
    killed = tmp_path / "killed-cxx"
    killed.write_text("#!/bin/sh\nkill -9 $$\n")
    killed.chmod(0o755)
    monkeypatch.setenv("CXX", str(killed))
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    with pytest.raises(BuildError, match=r"killed-cxx was killed by signal 9 .*launch again"):
        build_library(add.source, add.kernel_name, "cpu")


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")


@needs_nvcc
def test_gpu_library_builds_with_nvcc():
    """The GPU form: kernel + cudaLaunchKernel entry, compiled for sm_90 (not run here)."""
    library = build_library(SCALE, "scale", "cuda")
    symbols = subprocess.run(["nm", "-D", library], capture_output=True, text=True).stdout
    assert " T ntc_launch" in symbols and " T ntc_error" in symbols


@needs_nvcc
def test_ptx_for_sm_90():
    ptx = compile_ptx(ROW_SUM, "row_sum")
    assert ".target sm_90" in ptx and ".visible .entry row_sum(" in ptx


@pytest.mark.parametrize("name", ["fma", "main", "expf", "free"])
def test_kernel_names_of_the_c_library_are_refused_by_name(name):
    """A CUDA C++ kernel is a C function of its own name: one the C library declares is refused
    with the fix (it was g++'s redeclaration error); the program under another name runs."""
    import compiler.dsl as nt
    from compiler.backends.emitter import EmitError

    def arrangement(x, out):
        return x.tile((64,)), out.tile((64,))

    def application(x, out):
        out = x  # noqa: F841

    tensors = (nt.Tensor(1), nt.Tensor(1))
    handle = nt.make(arrangement, application, tensors, backend="cuda", kernel_name=name)
    refusal = f"kernel name @{name} is reserved in target 'cuda'; rename"
    with pytest.raises(EmitError, match=refusal):
        handle(torch.randn(8), poisoned(8))
    renamed = nt.make(arrangement, application, tensors, backend="cuda", kernel_name=f"my_{name}")
    x, out = torch.randn(100), poisoned(100)
    renamed(x, out)
    assert torch.equal(out, x)
