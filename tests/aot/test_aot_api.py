"""NineToothed's ahead-of-time API (`make(..., caller=, kernel_name=, output_dir=)`,
`ninetoothed.aot.aot`) on the CPU, with `ninetoothed` bound to this compiler: the kinds of kernel
NineToothed's own AOT tests build for a GPU (a bf16 add, an addmm with half-precision scalars, a
causal attention with a constexpr flag, a float32 scalar, a tile of 3), each called through its
library against torch with poisoned outputs; a C++ program calling a library itself; and the
launches an ahead-of-time kernel refuses instead of running wrongly."""

import ctypes
import functools
import json
import subprocess

import pytest
import torch
import torch.nn.functional as F

from compiler.cli.program import ninetoothed_for
from compiler.errors import CompileError
from compiler.runtime import aot
from compiler.runtime.aot.launch import NO_DRIVER
from compiler.runtime.aot.library import NineToothedTensor
from compiler.runtime.bindings import LaunchError
from compiler.suite import SUITE

CPU_FORMS = ("cuda", "tilelang", "tvm")


def tiled(block, *tensors):
    return tuple(t.tile((block,)) for t in tensors)


def add(input, other, output):
    output = input + other  # noqa: F841


def scale(input, factor, output):
    output = input * factor  # noqa: F841


def copy(input, output):
    output = input  # noqa: F841


def scaling(nt, dtype, block):
    """(arrangement, tensors) of vectors of `dtype` scaled by a float32, in tiles of `block`."""

    def arrangement(input, factor, output):
        return input.tile((block,)), factor, output.tile((block,))

    return arrangement, (
        nt.Tensor(1, dtype=dtype),
        nt.Tensor(0, dtype=nt.float32),
        nt.Tensor(1, dtype=dtype),
    )


def nan(*shape, dtype=torch.float32):
    return torch.full(shape, float("nan"), dtype=dtype)


@pytest.mark.parametrize("backend", CPU_FORMS)
def test_add_in_half_precision(backend, tmp_path):
    nt = ninetoothed_for(backend)
    dtype = torch.bfloat16
    tensors = tuple(nt.Tensor(1, dtype=nt.bfloat16) for _ in range(3))
    arrangement = functools.partial(tiled, 256)
    kernel = nt.make(
        arrangement, add, tensors, caller="cpu", kernel_name="add_0", output_dir=tmp_path
    )
    input, other = torch.randn(4533, dtype=dtype), torch.randn(4533, dtype=dtype)
    output = nan(4533, dtype=dtype)
    kernel(input, other, output)
    torch.testing.assert_close(output, input + other)
    assert {p.name for p in tmp_path.iterdir()} >= {"ninetoothed.h", "add_0.h", "add_0.so"}


@pytest.mark.parametrize("backend", CPU_FORMS)
@pytest.mark.parametrize("as_tensor", [False, True])
def test_float32_scalar_as_python_float_or_tensor(backend, as_tensor, tmp_path):
    nt = ninetoothed_for(backend)
    arrangement, tensors = scaling(nt, nt.float32, 256)
    kernel = nt.make(
        arrangement, scale, tensors, caller="cpu", kernel_name="scale", output_dir=tmp_path
    )
    input, output = torch.randn(300), nan(300)
    kernel(input, torch.tensor(0.125) if as_tensor else 0.125, output)
    torch.testing.assert_close(output, input * 0.125)


@pytest.mark.parametrize("backend", CPU_FORMS)
def test_tile_of_three_on_strided_tensors(backend, tmp_path):
    nt = ninetoothed_for(backend)
    tensors = (nt.Tensor(1, dtype=nt.float32), nt.Tensor(1, dtype=nt.float32))
    kernel = nt.make(
        functools.partial(tiled, 3),
        copy,
        tensors,
        caller="cpu",
        kernel_name="copy3",
        output_dir=tmp_path,
    )
    source = torch.randn(11, 5)[:, 3]  # stride 5
    output = nan(22)[::2]
    kernel(source, output)
    assert torch.equal(output, source)


@pytest.mark.parametrize("backend", CPU_FORMS)
def test_aot_of_an_annotated_application(backend, tmp_path):
    nt = ninetoothed_for(backend)
    x, y, z = (nt.Tensor(2, dtype=nt.float32) for _ in range(3))

    def application(x: x.tile((4, 8)), y: y.tile((4, 8)), z: z.tile((4, 8))):
        z = x * y + x  # noqa: F841

    kernel = nt.aot.aot(application, caller="cpu", kernel_name="fused", output_dir=tmp_path)
    a, b, out = torch.randn(9, 13), torch.randn(9, 13), nan(9, 13)
    kernel(a, b, out)
    torch.testing.assert_close(out, a * b + a)


@pytest.mark.parametrize("name", ["addmm", "flash_attention_causal"])
def test_declared_half_precision_suite_kernels(name, tmp_path):
    """Declared dtypes only (no example arguments), as NineToothed's make builds them: fp16
    tensors and fp16 scalars passed as 0-d tensors; a constexpr flag passed as a tensor."""
    kernel = SUITE[name]
    handle = _suite_handle(kernel, "cuda")
    for tensor in handle.tensors:
        tensor.dtype = None if tensor.constexpr else "fp16"
    defines = dict(kernel.call_kwargs) | _head_dim(handle, 16)
    aot.write(handle, "cpu", tmp_path, **defines)
    library = aot.load(tmp_path, handle.kernel_name)
    args = [
        a.half() if isinstance(a, torch.Tensor) else torch.tensor(a, dtype=torch.float16)
        for a in kernel.make_args(3)
    ]
    expected = kernel.reference([a.float() if a.ndim else a.item() for a in args])
    library(*args, *(torch.tensor(v) for v in kernel.call_kwargs.values()))
    for index, want in zip(kernel.outputs, expected, strict=True):
        torch.testing.assert_close(args[index].float(), want.float(), rtol=2e-2, atol=2e-2)


def test_attention_like_ninetoothed_aot_test(tmp_path):
    """Causal attention through its library equals torch's (scale 1, as NineToothed's test)."""
    kernel = SUITE["flash_attention_causal"]
    handle = _suite_handle(kernel, "cuda")
    q, k, v = (torch.randn(2, 2, 37, 16) for _ in range(3))
    out = nan(2, 2, 37, 16)
    args = [q, k, v, 1.0, out]
    aot.write(handle, "cpu", tmp_path, like=(args, {"is_causal": True}))
    library = aot.load(tmp_path, handle.kernel_name)
    library(*args, is_causal=True)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(LaunchError, match="compiled in as True, and False was passed"):
        library(*args, is_causal=False)
    wider = [torch.randn(2, 2, 37, 32) for _ in range(3)]  # the head dim was compiled in as 16
    with pytest.raises(LaunchError, match="has size 32 in dim 3, and the kernel is built for 16"):
        library(*wider, 1.0, nan(2, 2, 37, 32), is_causal=True)


@pytest.mark.parametrize("backend", CPU_FORMS)
def test_a_cpp_program_calls_the_library(backend, tmp_path):
    """The header and library are what a C++ caller needs: it includes one and links the other
    (TVM's too: its library needs no TVM runtime)."""
    nt = ninetoothed_for(backend)
    tensors = tuple(nt.Tensor(1, dtype=nt.float32) for _ in range(3))
    nt.make(
        functools.partial(tiled, 64),
        add,
        tensors,
        caller="cpu",
        kernel_name="add_c",
        output_dir=tmp_path,
    )
    (tmp_path / "main.cpp").write_text(MAIN)
    program = tmp_path / "main"
    subprocess.run(
        [
            "g++",
            "-std=c++17",
            str(tmp_path / "main.cpp"),
            f"-L{tmp_path}",
            "-l:add_c.so",
            f"-Wl,-rpath,{tmp_path}",
            "-o",
            str(program),
        ],
        check=True,
    )
    done = subprocess.run([str(program)], capture_output=True, text=True, check=True)
    assert [float(v) for v in done.stdout.split()] == [1.5 * i for i in range(100)]


MAIN = r"""
#include <stdio.h>
#include "add_c.h"

int main() {
  float x[100], y[100], z[100];
  for (int i = 0; i < 100; ++i) { x[i] = i; y[i] = 0.5f * i; z[i] = -1; }
  uint64_t shape[] = {100};
  int64_t strides[] = {1};
  NineToothedTensor a = {x, shape, strides}, b = {y, shape, strides}, c = {z, shape, strides};
  if (launch_add_c(NULL, a, b, c) != 0) { printf("%s\n", launch_add_c_error()); return 1; }
  for (int i = 0; i < 100; ++i) printf("%g\n", z[i]);
  return 0;
}
"""


# -- what a launch refuses ------------------------------------------------------------------------


def built_copy(directory, name, **options):
    """The library of a CUDA C++ copy of float32 vectors in tiles of 64, for the CPU."""
    nt = ninetoothed_for("cuda")
    tensors = (nt.Tensor(1, dtype=nt.float32), nt.Tensor(1, dtype=nt.float32))
    handle = nt.make(functools.partial(tiled, 64), copy, tensors)
    handle.kernel_name = name
    aot.write(handle, "cpu", directory, **options)
    return aot.load(directory, name)


def test_written_tensor_with_more_tiles_than_the_grid_is_refused(tmp_path):
    kernel = built_copy(tmp_path, "uncovered")
    with pytest.raises(LaunchError, match="output has 2 outermost tiles and the grid 1 programs"):
        kernel(torch.randn(64), nan(100))


def test_a_32_bit_form_refuses_a_tensor_past_its_width(tmp_path):
    library = built_copy(tmp_path, "narrow", index_bits=32)
    huge = torch.zeros(1).expand(2**31)  # one element in memory
    with pytest.raises(LaunchError, match="indexes in 32 bits, and input's dim 0 passes it"):
        library(huge, huge)
    small = torch.randn(100)
    output = nan(100)
    library(small, output)
    assert torch.equal(output, small)


def test_arguments_of_the_wrong_kind_are_refused(tmp_path):
    kernel = built_copy(tmp_path, "typed")
    with pytest.raises(LaunchError, match="built for 1-dim f32 tensors, got a 1-dim torch.float64"):
        kernel(torch.randn(8, dtype=torch.float64), nan(8))
    with pytest.raises(LaunchError, match="is missing 'output'"):
        kernel(torch.randn(8))


@pytest.mark.parametrize(
    "backend, caller, message",
    [
        ("triton", "cpu", "for cpu, use backend cuda or tilelang"),
        ("tvm", "cuda", "for cuda, use backend cuda or tilelang or triton"),
    ],
)
def test_backends_without_a_form_for_the_caller_say_which_have_one(
    backend, caller, message, tmp_path
):
    nt = ninetoothed_for(backend)
    tensors = (nt.Tensor(1, dtype=nt.float32), nt.Tensor(1, dtype=nt.float32))
    with pytest.raises(CompileError, match=message):
        nt.make(functools.partial(tiled, 64), copy, tensors, caller=caller, output_dir=tmp_path)


def test_make_for_a_device_needs_an_output_dir():
    nt = ninetoothed_for("cuda")
    tensors = (nt.Tensor(1, dtype=nt.float32), nt.Tensor(1, dtype=nt.float32))
    with pytest.raises(CompileError, match="needs output_dir"):
        nt.make(functools.partial(tiled, 64), copy, tensors, caller="cpu")


# -- GPU forms, built here -----------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["cuda", "tilelang", "triton"])
def test_gpu_libraries_build_and_load_without_a_gpu(backend, tmp_path):
    """The GPU forms build on this machine (nvcc for sm_90, CUDA C++ and TileLang's CUDA; Triton's
    sm_90 cubin, whose entry takes exactly the arguments the launch passes) and load; a launch
    without a GPU driver fails with an error code instead of running."""
    nt = ninetoothed_for(backend)
    arrangement, tensors = scaling(nt, nt.float16, 128)
    handle = nt.make(arrangement, scale, tensors)
    handle.kernel_name = f"scale_{backend}"
    aot.write(handle, "cuda", tmp_path)
    library = aot.load(tmp_path, handle.kernel_name)
    data = torch.zeros(16, dtype=torch.float16)
    shape, strides, factor = (ctypes.c_uint64 * 1)(16), (ctypes.c_int64 * 1)(1), ctypes.c_double(2)
    tensor = NineToothedTensor(data.data_ptr(), shape, strides)
    result = library.launch(None, tensor, NineToothedTensor(ctypes.addressof(factor)), tensor)
    # Triton's form says it found no driver; the others pass on CUDA's error (no -1: no check
    # refused the launch).
    assert result == NO_DRIVER if backend == "triton" else result > 0, library.error()
    with pytest.raises(LaunchError, match="is on cpu; the kernel runs on cuda"):
        library(data, 2.0, data)


def _suite_handle(kernel, backend):
    from compiler.suite.checking import build

    return build(kernel, backend)


def _head_dim(handle, size):
    """Values for the sizes the program declares constexpr (flash attention's head dim)."""
    return {
        dim.name: size
        for tensor in handle.tensors
        for dim in getattr(tensor, "shape", ())
        if getattr(dim, "constexpr", False) and not getattr(dim, "meta", False)
    }


def test_overflow_terms_are_the_checks_a_32_bit_launch_makes(tmp_path):
    """`ninetoothed.aot._overflow_terms` (NineToothed's name) gives the conditions the launch
    function of a 32-bit form checks, per size and stride."""
    nt = ninetoothed_for("cuda")
    terms = nt.aot._overflow_terms(("input", "scale"), (2, 0))
    assert terms[:3] == (
        "input.shape[0] > 2147483647ULL",
        "input.strides[0] > 2147483647LL",
        "input.strides[0] < -2147483648LL",
    )
    assert len(terms) == 6
    tensors = (nt.Tensor(2, dtype=nt.float32), nt.Tensor(2, dtype=nt.float32))
    handle = nt.make(lambda x, y: (x.tile((8, 8)), y.tile((8, 8))), copy, tensors)
    handle.kernel_name = "narrow2"
    aot.write(handle, "cpu", tmp_path, index_bits=32)
    source = (tmp_path / "narrow2.cu").read_text()
    assert all(term in source for term in nt.aot._overflow_terms(("input",), (2,)))


@pytest.mark.parametrize("backend", CPU_FORMS)
def test_a_half_scalar_is_passed_as_its_declared_type(backend, tmp_path):
    """A float16 scalar's `data` points at its 16 bits, as the program declares it, whatever type
    the target takes it in (TileLang's C form takes it as a float32: the launch converts)."""
    nt = ninetoothed_for(backend)
    arrangement, tensors = scaling(nt, nt.float32, 64)
    tensors = (tensors[0], nt.Tensor(0, dtype=nt.float16), tensors[2])
    kernel = nt.make(
        arrangement, scale, tensors, caller="cpu", kernel_name="half_scale", output_dir=tmp_path
    )
    assert json.loads((tmp_path / "half_scale.json").read_text())["parameters"][1]["dtype"] == "f16"
    input, output = torch.randn(100), nan(100)
    kernel(input, 0.3, output)
    factor = torch.tensor(0.3, dtype=torch.float16)
    torch.testing.assert_close(output, input * factor.float(), rtol=1e-3, atol=1e-3)


def test_a_squeezed_dimension_of_more_than_one_element_is_refused(tmp_path):
    """As the Python launch refuses it (tests/frontend/test_squeezes.py)."""
    nt = ninetoothed_for("cuda")

    def row_blocks(input, output):
        arranged = [t.tile((8, 16)).tile((1, -1)).squeeze(0) for t in (input, output)]
        for tiles in arranged:
            tiles.dtype = tiles.dtype.squeeze(0)
        return tuple(arranged)

    tensors = (nt.Tensor(2, dtype=nt.float32), nt.Tensor(2, dtype=nt.float32))
    handle = nt.make(row_blocks, copy_rows, tensors)
    handle.kernel_name = "squeezed"
    aot.write(handle, "cpu", tmp_path)
    kernel = aot.load(tmp_path, "squeezed")
    x = torch.randn(8, 40)
    output = nan(8, 40)
    kernel(x, output)
    torch.testing.assert_close(output, x)
    with pytest.raises(LaunchError, match="input's arrangement squeezes a dimension that has 3 el"):
        kernel(torch.randn(19, 40), nan(19, 40))


def copy_rows(input, output):
    for j in range(input.shape[0]):
        output[j] = input[j]
