"""Vectorized global accesses in CUDA C++: a launch specializes the kernel for its unit strides and
its 16-byte aligned buffers (compiler/runtime/specialization.py), and then a thread's consecutive
lanes load and store as vectors. Run through the host shim on poisoned outputs against torch,
with whole vectors, ragged tails, misaligned and strided tensors (which fall back to scalars);
the GPU form's PTX holds the vector instructions and no local memory."""

from __future__ import annotations

import shutil

import pytest
import torch

import compiler.dsl
import compiler.dsl.language as ntl
from compiler.backends import build_artifact, get_target
from compiler.ir import parse_kernel
from compiler.ir.interpreter import run_kernel
from compiler.runtime import cuda_launcher
from compiler.runtime.bindings import LaunchError
from compiler.runtime.cuda_build import compile_ptx
from compiler.runtime.specialization import specialized

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")


def _scaled_sum(block: int):
    def arrangement(x, y, output, BLOCK_SIZE=block):
        return x.tile((BLOCK_SIZE,)), y.tile((BLOCK_SIZE,)), output.tile((BLOCK_SIZE,))

    def application(x, y, output):
        output = x * 3 + y  # noqa: F841

    return arrangement, application


def _row_max(block: int):
    def arrangement(x, output, BLOCK_SIZE=block):
        return x.tile((1, BLOCK_SIZE)), output.tile((1, BLOCK_SIZE))

    def application(x, output):
        output = x - ntl.max(x)  # noqa: F841

    return arrangement, application


def _handle(program, tensors, device="cpu", **options):
    arrangement, application = program
    return compiler.dsl.make(
        arrangement, application, tensors, backend="cuda", device=device, **options
    )


def _vectors(handle, *args) -> int:
    """The vector loads and stores of the form this launch ran."""
    source = specialized(handle.last, handle.bindings(*args)).source
    return source.count("ntc_load_lanes<") + source.count("ntc_store_lanes<")


def _strided(values: torch.Tensor, offset: int, step: int) -> torch.Tensor:
    """`values` laid out `offset` elements into a larger buffer, every `step`-th element."""
    room = torch.zeros(offset + values.numel() * step + 16, dtype=values.dtype)
    view = room[offset : offset + values.numel() * step : step]
    view.copy_(values)
    return view


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8, torch.float64])
@pytest.mark.parametrize(
    ("n", "offset", "step", "vectors"),
    [
        (1024, 0, 1, 3),  # whole vectors: x, y and the output
        (1021, 0, 1, 3),  # a ragged tail runs lane by lane
        (1021, 1, 1, 2),  # x misaligned: only y and the output
        (700, 0, 2, 2),  # x strided: only y and the output
    ],
)
def test_elementwise_lanes_match_torch(dtype, n, offset, step, vectors):
    tensors = tuple(compiler.dsl.Tensor(1, dtype=dtype) for _ in range(3))
    handle = _handle(_scaled_sum(256), tensors, num_warps=1)
    gen = torch.Generator().manual_seed(n + offset)
    x, y = ((torch.randn(n, generator=gen) * 20).to(dtype) for _ in range(2))
    output = torch.full((n,), 77, dtype=dtype)
    handle(_strided(x, offset, step), y, output)
    torch.testing.assert_close(output, (x * 3 + y).to(dtype), rtol=1e-3, atol=1e-3)
    assert _vectors(handle, _strided(x, offset, step), y, output) == vectors


@pytest.mark.parametrize("cols", [256, 250, 131])
def test_rows_lanes_match_torch(cols):
    """Rows whose length is not a multiple of the lanes start misaligned: those rows run lane by
    lane (a vector access there would fail the launch: misaligned address), the others as
    vectors."""
    tensors = (compiler.dsl.Tensor(2, other=float("-inf")), compiler.dsl.Tensor(2))
    handle = _handle(_row_max(256), tensors, num_warps=1)
    x = torch.randn(7, cols)
    output = torch.full_like(x, float("nan"))
    handle(x, output)
    torch.testing.assert_close(output, x - x.amax(dim=1, keepdim=True))
    assert _vectors(handle, x, output) == 3  # x is loaded for the max and for the difference


def test_each_specialization_is_its_own_form():
    handle = _handle(_scaled_sum(1024), tuple(compiler.dsl.Tensor(1) for _ in range(3)))
    x = torch.randn(4096)
    contiguous = specialized(handle.compile(x, x, x), handle.bindings(x, x, x))
    assert "x_stride_0" not in contiguous.source.split("{", 1)[1]  # the unit stride folded
    assert contiguous.source.count("ntc_load_lanes<4") == 2
    strided = x[::2]
    other = specialized(handle.compile(strided, x, x), handle.bindings(strided, x, x))
    assert other.source != contiguous.source and other.source.count("ntc_load_lanes<") == 1


@needs_nvcc
@pytest.mark.parametrize(("dtype", "load"), [("f32", "v4.u32"), ("f16", "v2.u32")])
def test_the_gpu_form_loads_and_stores_vectors_in_registers(dtype, load):
    torch_dtype = {"f32": torch.float32, "f16": torch.float16}[dtype]
    tensors = tuple(compiler.dsl.Tensor(1, dtype=torch_dtype) for _ in range(3))
    handle = _handle(_scaled_sum(1024), tensors, device="cuda")
    x = torch.zeros(1 << 16, dtype=torch_dtype)
    artifact = specialized(handle.compile(x, x, x), handle.bindings(x, x, x))
    ptx = compile_ptx(artifact.source, artifact.kernel_name)
    assert f"ld.global.nc.{load}" in ptx and "st.global.v4" in ptx
    assert "__local_depot" not in ptx  # the lanes' arrays stay in registers


_SHIFTED = """
kernel @shifted(%a: buffer<f32>, %b: buffer<f32>, %at: index) attributes {grid = "1"} {
  %0 = mem.alloc() {dtype = "f32", scope = "local", size = 4} : array<f32[4]>
  mem.load_lanes(%a, %at, %0) {lanes = 4}
  mem.store_lanes(%0, %b, %at) {lanes = 4}
}
"""


def test_a_misaligned_vector_access_fails_as_on_a_gpu():
    """The host shim faults where a GPU would, so a wrong vector access cannot pass on the CPU;
    the reference interpreter refuses it too."""
    artifact = build_artifact(parse_kernel(_SHIFTED), get_target("cuda"))
    a, b = torch.arange(8.0), torch.zeros(8)

    def run_as_built(bindings: dict) -> None:  # this final IR, not lowered again for the launch
        values = [bindings[name] for name, _ in artifact.args]
        cuda_launcher.prepare(artifact, bindings)(values)

    run_as_built({"a": a, "b": b, "at": 4})
    assert b.tolist() == [0, 0, 0, 0, 4, 5, 6, 7]
    with pytest.raises(LaunchError, match="misaligned address"):
        run_as_built({"a": a, "b": b, "at": 2})
    with pytest.raises(ValueError, match="offset 2 is not a multiple of its 4 lanes"):
        run_kernel(parse_kernel(_SHIFTED), {"a": a.numpy(), "b": b.numpy(), "at": 2})


def test_only_a_target_that_asks_is_specialized():
    x = torch.randn(64)
    for backend, wanted in (("cuda", True), ("triton", False), ("tvm", False)):
        arrangement, application = _scaled_sum(64)
        handle = compiler.dsl.make(
            arrangement,
            application,
            tuple(compiler.dsl.Tensor(1) for _ in range(3)),
            backend=backend,
        )
        artifact = handle.compile(x, x, x)
        assert (specialized(artifact, handle.bindings(x, x, x)) is not artifact) == wanted
