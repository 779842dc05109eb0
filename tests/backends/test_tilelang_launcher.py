"""The TileLang launcher on hand-written kernels in the form the emitter writes for TileLang: a
masked vector add over a grid, and row sums of a 2-D tensor through a local array and a loop. The
CPU forms run (target "c") and are compared with torch; the CUDA forms lower to CUDA source and
compile with nvcc for sm_90 (nothing runs on a GPU here)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from conftest import poisoned

from compiler.backends import Artifact
from compiler.runtime import LaunchError, launch
from compiler.runtime.cache import cache_dir
from compiler.runtime.tilelang_launcher import compiled, cuda_binary, cuda_source

ROOT = Path(__file__).resolve().parents[2]
CPU = "import tilelang.cpu.language as T"
CUDA = "import tilelang.language as T"

# The emitted layout: one statement per op; constants and values before the kernel are Let
# bindings, values inside it one-element variables (`T.alloc_var`); the grid is `T.Kernel`.
VECTOR_ADD = """
# ssa-sha256: hand-written
{prelude}


@T.prim_func
def vector_add(
    x: T.Tensor((T.dynamic("x_extent"),), T.float32),
    y: T.Tensor((T.dynamic("y_extent"),), T.float32),
    z: T.Tensor((T.dynamic("z_extent"),), T.float32),
    n: T.int32, x_stride_0: T.int32, y_stride_0: T.int32, z_stride_0: T.int32,
):
    v0 = T.int32(64)
    v1 = T.int32(63)
    v2 = n + v1
    v3 = T.truncdiv(v2, v0)
    v4 = T.int32(0)
    v5 = T.int32(1)
    with T.Kernel(v3{launch}) as v6:
        v7 = T.alloc_var(T.int32, init=v6 * v0)
        for v8 in {loop}:
            v9 = T.alloc_var(T.int32, init=v7 + v8)
            v10 = T.alloc_var(T.bool, init=v9 < n)
            v11 = T.alloc_var(T.int32, init=v9 * x_stride_0)
            v12 = T.alloc_var(T.float32, init=T.if_then_else(v10, x[v11], T.float32(0.0)))
            v13 = T.alloc_var(T.int32, init=v9 * y_stride_0)
            v14 = T.alloc_var(T.float32, init=T.if_then_else(v10, y[v13], T.float32(0.0)))
            v15 = T.alloc_var(T.float32, init=v12 + v14)
            v16 = T.alloc_var(T.int32, init=v9 * z_stride_0)
            if v10: z[v16] = v15
"""

# Row sums: each program owns 4 rows, accumulates column chunks of 8 into an array, then stores.
ROW_SUM = """
# ssa-sha256: hand-written
{prelude}


@T.prim_func
def row_sum(
    x: T.Tensor((T.dynamic("x_extent"),), T.float32),
    out: T.Tensor((T.dynamic("out_extent"),), T.float32),
    m: T.int32, n: T.int32, x_stride_0: T.int32, x_stride_1: T.int32, out_stride_0: T.int32,
):
    v0 = T.int32(4)
    v1 = T.int32(3)
    v2 = m + v1
    v3 = T.truncdiv(v2, v0)
    v4 = T.int32(8)
    v5 = T.int32(7)
    v6 = n + v5
    v7 = T.truncdiv(v6, v4)
    v8 = T.int32(0)
    v9 = T.int32(1)
    v10 = T.float32(0.0)
    with T.Kernel(v3{launch}) as v11:
        v12 = T.alloc_{scope}((4,), T.float32)
        v13 = T.alloc_var(T.int32, init=v11 * v0)
        for v14 in {rows}:
            v12[v14] = v10
        for v15 in T.serial(v8, v7, v9):
            v16 = T.alloc_var(T.int32, init=v15 * v4)
            for v17 in {rows}:
                v18 = T.alloc_var(T.int32, init=v13 + v17)
                v19 = T.alloc_var(T.bool, init=v18 < m)
                v20 = T.alloc_var(T.int32, init=v18 * x_stride_0)
                for v21 in T.serial(v8, v4, v9):
                    v22 = T.alloc_var(T.int32, init=v16 + v21)
                    v23 = T.alloc_var(T.bool, init=v22 < n)
                    v24 = T.alloc_var(T.bool, init=v19 & v23)
                    v25 = T.alloc_var(T.int32, init=v22 * x_stride_1)
                    v26 = T.alloc_var(T.int32, init=v20 + v25)
                    v27 = T.alloc_var(T.float32, init=T.if_then_else(v24, x[v26], T.float32(0.0)))
                    v28 = T.alloc_var(T.float32, init=v12[v17])
                    v29 = T.alloc_var(T.float32, init=v28 + v27)
                    v12[v17] = v29
        for v30 in {rows}:
            v31 = T.alloc_var(T.int32, init=v13 + v30)
            v32 = T.alloc_var(T.bool, init=v31 < m)
            v33 = T.alloc_var(T.int32, init=v31 * out_stride_0)
            v34 = T.alloc_var(T.float32, init=v12[v30])
            if v32: out[v33] = v34
"""

FORMS = {
    "cpu": {"prelude": CPU, "launch": "", "scope": "local"},
    "cuda": {"prelude": CUDA, "launch": ", threads=4 * 32", "scope": "shared"},
}
LOOPS = {"cpu": "T.serial(v4, v0, v5)", "cuda": "T.Parallel(v0)"}
ROWS = {"cpu": "T.serial(v8, v0, v9)", "cuda": "T.Parallel(v0)"}
DTYPES = {"buffer": "f32", "index": "index"}


def artifact(name: str, source: str, args: str, grid: str, device: str) -> Artifact:
    kinds = [(arg, "buffer" if arg in "x y z out" else "index") for arg in args.split()]
    return Artifact(
        backend="tilelang",
        device=device,
        kernel_name=name,
        source=textwrap.dedent(source).lstrip(),
        ssa="",
        trace=[],
        initial_ssa="",
        args=kinds,
        arg_dtypes={arg: DTYPES[kind] for arg, kind in kinds},
        grid=grid,
        schedule={},
        num_warps=None,
        num_stages=None,
        ssa_hash="",
    )


def vector_add(device: str = "cpu") -> Artifact:
    source = VECTOR_ADD.format(**FORMS[device], loop=LOOPS[device])
    args = "x y z n x_stride_0 y_stride_0 z_stride_0"
    return artifact("vector_add", source, args, "(n + 63) // 64", device)


def row_sum(device: str = "cpu") -> Artifact:
    source = ROW_SUM.format(**FORMS[device], rows=ROWS[device])
    args = "x out m n x_stride_0 x_stride_1 out_stride_0"
    return artifact("row_sum", source, args, "(m + 3) // 4", device)


def add_bindings(x, y, z):
    strides = {f"{k}_stride_0": t.stride(0) for k, t in zip("xyz", (x, y, z), strict=True)}
    return {"x": x, "y": y, "z": z, "n": z.numel(), **strides}


@pytest.mark.parametrize("n", [1, 64, 200])
def test_vector_add_masks_the_tail(n):
    x, y, z = torch.randn(n), torch.randn(n), poisoned(n)
    launch(vector_add(), add_bindings(x, y, z))
    torch.testing.assert_close(z, x + y)


def test_strided_and_offset_views_pass_their_storage():
    base, y, out = torch.randn(3, 150), torch.randn(200), poisoned(100, 2)
    x, y, z = base[1, 7:107], y[::2], out[:, 0]  # storage offset 157; strides 2
    launch(vector_add(), add_bindings(x, y, z))
    torch.testing.assert_close(z, x + y)
    assert out[:, 1].isnan().all()


def test_row_sum_through_a_local_array():
    x = torch.randn(40, 13)[3:, 1:].t()  # 12 x 37, strides (1, 13), offset 40
    out = poisoned(24)[::2]
    bindings = {"x": x, "out": out, "m": 12, "n": 37}
    bindings |= {"x_stride_0": 1, "x_stride_1": 13, "out_stride_0": 2}
    launch(row_sum(), bindings)
    torch.testing.assert_close(out, x.sum(1))


def test_empty_grid_does_not_run():
    z = poisoned(4)
    launch(vector_add(), add_bindings(torch.ones(4), torch.ones(4), z) | {"n": 0})
    assert z.isnan().all()


def test_compiled_once_per_process_and_cached_on_disk():
    kernel = compiled(vector_add())
    assert compiled(vector_add()) is kernel
    assert list((cache_dir() / "tilelang").rglob("kernel_lib.so"))


def test_a_fresh_build_leaves_no_files_in_the_temporary_directory(tmp_path, monkeypatch):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path / "cache"))
    add = vector_add()  # renamed: TileLang keeps every kernel it built in this process
    add = replace(
        add, kernel_name="fresh_add", source=add.source.replace("vector_add", "fresh_add")
    )
    x, y, z = torch.randn(100), torch.randn(100), poisoned(100)
    launch(add, add_bindings(x, y, z))
    torch.testing.assert_close(z, x + y)
    assert list(temporary.iterdir()) == []
    assert list((tmp_path / "cache" / "tilelang").rglob("kernel_lib.so"))


RELOAD = """
import sys
from tilelang.jit.adapter.libgen import LibraryGenerator
from test_tilelang_launcher import vector_add
from compiler.runtime.tilelang_launcher import compiled

def refuse(self, *args, **kwargs):
    raise AssertionError("compiled again instead of loading from the disk cache")

LibraryGenerator.compile_lib = refuse
compiled(vector_add())
"""


def test_a_fresh_process_loads_the_kernel_from_disk():
    compiled(vector_add())
    env = os.environ | {"PYTHONPATH": f"{ROOT}{os.pathsep}{Path(__file__).parent}"}
    done = subprocess.run(
        [sys.executable, "-c", RELOAD], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_bool_buffers_are_refused_on_the_cpu():
    add = vector_add()
    add = Artifact(**{**vars(add), "arg_dtypes": {**add.arg_dtypes, "x": "i1"}})
    x = torch.ones(4, dtype=torch.bool)
    with pytest.raises(LaunchError, match="argument 'x': TileLang's C target cannot take i1"):
        launch(add, add_bindings(x, torch.ones(4), poisoned(4)))


def test_cuda_form_needs_cuda_tensors():
    with pytest.raises(LaunchError, match="on cpu but this tilelang kernel runs on cuda"):
        launch(vector_add("cuda"), add_bindings(torch.ones(4), torch.ones(4), poisoned(4)))


def test_cuda_source_needs_the_cuda_form():
    with pytest.raises(ValueError, match="lowered for device 'cpu'; lower it for device='cuda'"):
        cuda_source(vector_add())


@pytest.mark.parametrize("build", [vector_add, row_sum])
def test_cuda_form_lowers_and_compiles_for_sm90(build):
    cuda = cuda_source(build("cuda"))
    assert f"__global__ void __launch_bounds__(128, 1) {build.__name__}_kernel(" in cuda
    assert cuda_source(build("cuda").source) == cuda
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    assert cuda_binary(cuda, "sm_90").startswith(b"\x7fELF")


def test_bfloat16_is_held_as_bits_on_the_c_form_and_kept_on_cuda():
    """TileLang's C target has no bfloat16 type: bf16 values are held as their bits there and their
    math computes in f32 (ssa.emulate_narrow_floats), rounding as torch does; its CUDA form keeps
    bf16."""
    import compiler.dsl as nt

    def arrangement(a, b, c):
        return a.tile((64,)), b.tile((64,)), c.tile((64,))

    def application(a, b, c):
        c = a + b  # noqa: F841

    tensors = tuple(nt.Tensor(1, dtype=nt.bfloat16) for _ in range(3))
    handle = nt.make(arrangement, application, tensors, backend="tilelang", device="cpu")
    x, y = torch.randn(100, dtype=torch.bfloat16), torch.randn(100, dtype=torch.bfloat16)
    out = torch.full_like(x, float("nan"))
    handle(x, y, out)
    assert torch.equal(out, x + y) and "bfloat16" not in handle.last.source
    on_gpu = nt.make(arrangement, application, tensors, backend="tilelang", device="cuda")
    assert "T.bfloat16" in on_gpu.compile_declared().source
