"""The TVM launcher and its worker, on hand-written TVMScript in the form the emitter produces.

The kernels below are fixtures for the runtime (not emitter output): scalar TIR over flat 1-D
buffers with explicit strides, `T.let` bindings, program ids as a serial loop (a thread binding in
the CUDA form), masked loads as `T.if_then_else` and masked stores as one-line `if`s.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import pytest
import torch
from conftest import poisoned

from compiler.backends import Artifact
from compiler.runtime import launch, tvm_launcher
from compiler.runtime.tvm_launcher import TVMError, cuda_source

HEADER = "# ssa-sha256: hand-written\nfrom tvm.script import tirx as T\n\n\n@T.prim_func\n"
BUFFER = 'T.Buffer((T.int32(),), "{}", align=1, offset_factor=1)'
DTYPES = {"float32": "f32", "int32": "i32"}


class Fixture(NamedTuple):
    params: tuple[tuple[str, str], ...]  # (name, TVM dtype of a buffer, or "index")
    grid: str  # the artifact's grid expression
    count: str  # the program count inside the kernel
    body: str


def params(text: str) -> tuple[tuple[str, str], ...]:
    """ "x:float32 n" -> (("x", "float32"), ("n", "index"))"""
    return tuple((*word.split(":"), "index")[:2] for word in text.split())


FIXTURES = {
    "masked_add": Fixture(
        params("x:float32 x_stride_0 y:float32 y_stride_0 z:float32 z_stride_0 n"),
        "(n + 63) // 64",
        "v9",
        """    v0: T.let[T.int32] = T.int32(64)
    v1: T.let[T.int32] = T.int32(63)
    v8: T.let[T.int32] = n + v1
    v9: T.let[T.int32] = T.truncdiv(v8, v0)
    v10: T.let[T.int32] = T.int32(0)
    for v2 in {grid}:
        for v3 in T.serial(v10, v0):
            v4: T.let[T.int32] = v2 * v0 + v3
            v5: T.let[T.bool] = v4 < n
            v6: T.let[T.float32] = T.if_then_else(v5, x[v4 * x_stride_0], T.float32(0.0))
            v7: T.let[T.float32] = T.if_then_else(v5, y[v4 * y_stride_0], T.float32(0.0))
            if v5: z[v4 * z_stride_0] = v6 + v7
""",
    ),
    # Row sums of an [m, k] matrix: a 32-wide local accumulator, a loop over column blocks, then
    # a serial sum of the accumulator into a 1-element local array.
    "row_sum": Fixture(
        params("x:float32 x_size_0 x_size_1 x_stride_0 x_stride_1 out:float32 out_stride_0"),
        "x_size_0",
        "x_size_0",
        """    v0: T.let[T.int32] = T.int32(0)
    v1: T.let[T.int32] = T.int32(32)
    v14: T.let[T.int32] = T.int32(31)
    v15: T.let[T.int32] = x_size_1 + v14
    v2: T.let[T.int32] = T.truncdiv(v15, v1)
    for v3 in {grid}:
        v4 = T.alloc_buffer((32,), "float32", scope="local")
        for v5 in T.serial(v0, v1):
            v4[v5] = T.float32(0.0)
        for v6 in T.serial(v0, v2):
            for v7 in T.serial(v0, v1):
                v8: T.let[T.int32] = v6 * v1 + v7
                v9: T.let[T.bool] = v8 < x_size_1
                v10: T.let[T.int32] = v3 * x_stride_0 + v8 * x_stride_1
                v11: T.let[T.float32] = T.if_then_else(v9, x[v10], T.float32(0.0))
                v4[v7] = v4[v7] + v11
        v12 = T.alloc_buffer((1,), "float32", scope="local")
        v12[v0] = T.float32(0.0)
        for v13 in T.serial(v0, v1):
            v12[v0] = v12[v0] + v4[v13]
        out[v3 * out_stride_0] = v12[v0]
""",
    ),
    # The IR's integer division truncates toward zero and its remainder takes the dividend's sign.
    "divmod_by": Fixture(
        params("a:int32 q:int32 r:int32 d n"),
        "n",
        "n",
        """    for v0 in {grid}:
        q[v0] = T.truncdiv(a[v0], d)
        r[v0] = T.truncmod(a[v0], d)
""",
    ),
}


def artifact(name: str, device: str = "cpu", body: str | None = None) -> Artifact:
    fixture = FIXTURES[name]
    signature = ", ".join(
        f"{arg}: {BUFFER.format(dtype) if dtype != 'index' else 'T.int32'}"
        for arg, dtype in fixture.params
    )
    grid = f"T.serial(0, {fixture.count})"
    if device == "cuda":
        grid = f'T.thread_binding({fixture.count}, thread="blockIdx.x")'
    body = (body or fixture.body).format(grid=grid)
    return Artifact(
        backend="tvm",
        device=device,
        kernel_name=name,
        source=f"{HEADER}def {name}({signature}):\n{body}",
        ssa="",
        trace=[],
        initial_ssa="",
        args=[(arg, "buffer" if dtype != "index" else "index") for arg, dtype in fixture.params],
        arg_dtypes={arg: DTYPES.get(dtype, "index") for arg, dtype in fixture.params},
        grid=fixture.grid,
        schedule={},
        num_warps=None,
        num_stages=None,
        ssa_hash="",
    )


def add_bindings(x, y, z):
    strides = {f"{t}_stride_0": v.stride(0) for t, v in zip("xyz", (x, y, z), strict=True)}
    return {"x": x, "y": y, "z": z, "n": x.shape[0], **strides}


@pytest.mark.parametrize("n", [1, 64, 100, 333])
def test_masked_add_over_a_grid(n):
    x, y, z = torch.randn(n), torch.randn(n), poisoned(n)
    launch(artifact("masked_add"), add_bindings(x, y, z))
    assert torch.equal(z, x + y)


def test_strided_offset_and_aliased_tensors():
    base = torch.randn(3, 200)
    x, y = base[1, 7:107], base[:, :100].t()[:, 2]  # an offset view and a strided column
    frame = poisoned(300)
    z = frame[5:205:2]  # every other element: the ones between must stay untouched
    expected = x + y
    launch(artifact("masked_add"), add_bindings(x, y, z))
    assert torch.equal(z, expected)
    assert frame[:5].isnan().all() and frame[6:205:2].isnan().all() and frame[205:].isnan().all()
    before = base.clone()
    launch(artifact("masked_add"), add_bindings(x, x, x))  # in place: one tensor for all three
    before[1, 7:107] *= 2
    assert torch.equal(base, before)


@pytest.mark.parametrize("m, k, transpose", [(5, 100, False), (33, 32, True), (1, 7, False)])
def test_row_sum_with_local_arrays_and_a_loop(m, k, transpose):
    x = torch.randn(k, m).t() if transpose else torch.randn(m, k)
    out = poisoned(m)
    sizes = {"x_size_0": m, "x_size_1": k, "x_stride_0": x.stride(0), "x_stride_1": x.stride(1)}
    launch(artifact("row_sum"), {"x": x, "out": out, "out_stride_0": 1, **sizes})
    torch.testing.assert_close(out, x.sum(dim=1))


def test_integer_division_truncates_toward_zero():
    a = torch.tensor([-7, -6, -1, 0, 1, 6, 7], dtype=torch.int32)
    q, r = (torch.full_like(a, -12345) for _ in range(2))
    launch(artifact("divmod_by"), {"a": a, "q": q, "r": r, "d": 3, "n": a.numel()})
    assert q.tolist() == [-2, -2, 0, 0, 0, 2, 2]
    assert r.tolist() == [-1, 0, -1, 0, 1, 0, 1]


def test_an_empty_grid_runs_nothing():
    z = poisoned(4)
    launch(artifact("masked_add"), add_bindings(torch.ones(0), torch.ones(0), z[:0]))
    assert z.isnan().all()


def test_one_worker_serves_every_launch_and_builds_are_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    x = torch.randn(10)
    launch(artifact("masked_add"), add_bindings(x, x, z := poisoned(10)))
    worker = tvm_launcher._worker()
    (library,) = tmp_path.glob("*.llvm.so")
    launch(artifact("masked_add"), add_bindings(x, x, z))
    assert tvm_launcher._worker() is worker
    worker.process.kill()  # a worker that died is replaced; the new one loads the cached build
    worker.process.wait()
    built = library.stat().st_mtime_ns
    launch(artifact("masked_add"), add_bindings(x, x, z := poisoned(10)))
    assert torch.equal(z, 2 * x) and tvm_launcher._worker() is not worker
    assert library.stat().st_mtime_ns == built


def test_a_damaged_build_in_the_cache_is_built_again(tmp_path, monkeypatch):
    """A library cut short (a full disk, a killed copy) killed the worker that loaded it, on every
    launch: each build is sealed with its digest, and one that does not match is rebuilt."""
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    x = torch.randn(10)
    launch(artifact("masked_add"), add_bindings(x, x, poisoned(10)))
    (library,) = tmp_path.glob("*.llvm.so")
    library.write_bytes(library.read_bytes()[: library.stat().st_size // 2])
    tvm_launcher._worker().close()  # a fresh worker, which has not loaded the build yet
    launch(artifact("masked_add"), add_bindings(x, x, z := poisoned(10)))
    assert torch.equal(z, 2 * x)


def test_a_launch_interrupted_ends_its_worker_and_the_next_one_runs(monkeypatch):
    """Ctrl-C while the worker works: the worker is ended (its late reply would answer the next
    request) before the interrupt goes on, so the next launch starts a new one at once."""
    x = torch.randn(6)
    launch(artifact("masked_add"), add_bindings(x, x, poisoned(6)))
    worker = tvm_launcher._worker()

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(worker.process.stdout, "readline", interrupted)
    with pytest.raises(KeyboardInterrupt):
        launch(artifact("masked_add"), add_bindings(x, x, poisoned(6)))
    assert not worker.alive()
    launch(artifact("masked_add"), add_bindings(x, x, z := poisoned(6)))
    assert torch.equal(z, 2 * x) and tvm_launcher._worker() is not worker


def test_the_worker_ignores_another_tvm_on_the_paths(tmp_path, monkeypatch):
    """TileLang exports PYTHONPATH and TVM_LIBRARY_PATH for its own TVM when it is imported."""
    (tmp_path / "tvm").mkdir()
    (tmp_path / "tvm" / "__init__.py").write_text("raise ImportError('the wrong tvm')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("TVM_LIBRARY_PATH", str(tmp_path))
    tvm_launcher._worker().close()  # the next launch starts a worker in this environment
    x = torch.randn(5)
    launch(artifact("masked_add"), add_bindings(x, x, z := poisoned(5)))
    assert torch.equal(z, 2 * x)


def test_parse_errors_come_back_with_the_workers_message():
    broken = FIXTURES["masked_add"].body.replace("= v4 < n", "= v4 < m")  # m is not defined
    with pytest.raises(TVMError, match=r"@masked_add .*TVMScript parse: .*\bm\b") as caught:
        launch(artifact("masked_add", body=broken), add_bindings(*[torch.ones(3)] * 3))
    assert "line" in str(caught.value) or ".py:" in str(caught.value)


def test_compile_errors_come_back_with_the_workers_message():
    gpu_form = artifact("masked_add", "cuda")  # a thread binding means nothing to the CPU build
    cpu_copy = dataclasses.replace(gpu_form, device="cpu")
    with pytest.raises(TVMError, match="@masked_add .*compile for llvm"):
        launch(cpu_copy, add_bindings(*[torch.ones(3)] * 3))


def test_a_missing_tvm_interpreter_says_to_run_make_install(monkeypatch, tmp_path):
    for python in (tmp_path / "python", tmp_path):  # not there; a directory
        monkeypatch.setenv("NTC_TVM_PYTHON", str(python))
        with pytest.raises(TVMError, match=r"NTC_TVM_PYTHON is .*; run `make install`"):
            tvm_launcher.tvm_python()


@pytest.mark.parametrize("name", ["masked_add", "row_sum"])
def test_cuda_form_compiles_with_nvcc(name):
    code = cuda_source(artifact(name, "cuda"), arch="sm_90")
    assert f"__global__ void {name}_kernel(" in code and "blockIdx.x" in code


def test_a_cuda_form_without_a_thread_binding_is_refused():
    with pytest.raises(TVMError, match="@masked_add .*no device code: bind the program loop"):
        cuda_source(artifact("masked_add", "cpu"))
