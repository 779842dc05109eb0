"""NineToothed's `build` on the CPU: one library of variants, one per configuration, whose launch
function picks the variant the configuration values name; with meta-parameters, the fastest of
the variants that differ only in them, timed here. Against torch, with poisoned outputs; a
configuration no variant was built for, and a tensor of another size than a variant declares,
are refused."""

import functools
import subprocess

import pytest
import torch

from compiler.cli.program import ninetoothed_for
from compiler.runtime.aot.launch import C_DIR
from compiler.runtime.aot.variants import DTYPE_ORDER, config_int
from compiler.runtime.bindings import LaunchError


def arrangement(input, other, alpha, output, block_size):
    def tiled(tensor):
        return tensor.tile((block_size,))

    return tiled(input), tiled(other), alpha, tiled(output)


def application(input, other, alpha, output):
    output = input + alpha * other  # noqa: F841


def premake(nt, size=None, dtype=None, block_size=64):
    tensors = (
        nt.Tensor(shape=(size,), dtype=dtype),
        nt.Tensor(shape=(size,), dtype=dtype),
        nt.Tensor(0, dtype=nt.float64),
        nt.Tensor(shape=(size,), dtype=dtype),
    )
    return functools.partial(arrangement, block_size=block_size), application, tensors


def built(nt, configs, caller, kernel_name, folder, **options):
    """NineToothed's `build` of this file's `premake` over `configs`."""
    return nt.build(
        functools.partial(premake, nt),
        configs,
        caller=caller,
        kernel_name=kernel_name,
        output_dir=folder,
        **options,
    )


def nan_like(tensor):
    return torch.full_like(tensor, float("nan"))


@pytest.mark.parametrize("backend", ["cuda", "tilelang", "tvm"])
def test_tuned_build_runs_the_variant_for_the_size_and_dtype(backend, tmp_path):
    nt = ninetoothed_for(backend)
    configs = [
        ((), {"size": 3000, "dtype": nt.float32, "block_size": 128}, {}),
        ((), {"size": 3000, "dtype": nt.float32, "block_size": 512}, {}),
        ((), {"size": 1127, "dtype": nt.float32, "block_size": 64}, {"num_warps": 4}),
        ((), {"size": 1127, "dtype": nt.float32, "block_size": 64}, {"num_warps": 8}),
        ((), {"size": 1127, "dtype": nt.float64, "block_size": 64}, {}),
    ]
    kernel = built(nt, configs, "cpu", "add", tmp_path, meta_parameters=("block_size",))
    for size, dtype in ((3000, torch.float32), (1127, torch.float32), (1127, torch.float64)):
        input, other = torch.randn(size, dtype=dtype), torch.randn(size, dtype=dtype)
        alpha, output = torch.randn((), dtype=torch.float64), nan_like(input)
        kernel(input, other, alpha, output, size, "fp64" if dtype is torch.float64 else "fp32")
        torch.testing.assert_close(output, torch.add(input, other, alpha=alpha.item()))
    with pytest.raises(LaunchError, match="no variant was built for size_=77"):
        kernel(input, other, alpha, output, 77, "fp64")
    with pytest.raises(LaunchError, match="has size 100 in dim 0, and the kernel is built for"):
        kernel(input[:100], other[:100], alpha, output[:100], 1127, "fp64")
    with pytest.raises(LaunchError, match="built for 1-dim f64 tensors, got a 1-dim torch.float32"):
        kernel(input.float(), other.float(), alpha, output.float(), 1127, "fp64")
    header = (tmp_path / "add.h").read_text()
    assert "launch_add(NineToothedStream stream, NineToothedTensor input" in header
    assert "int size_, int dtype_)" in header  # the meta-parameters are the library's choice


def test_untuned_build_takes_every_configuration_value(tmp_path):
    nt = ninetoothed_for("cuda")
    configs = [
        ((), {"dtype": nt.float32, "block_size": 64}, {}),
        ((), {"dtype": nt.float32, "block_size": 256}, {"num_warps": 2}),
    ]
    kernel = built(nt, configs, "cpu", "add_any", tmp_path)
    for block_size, warps in ((64, None), (256, 2)):
        input, other = torch.randn(999), torch.randn(999)
        output = nan_like(input)
        kernel(input, other, 0.5, output, None, "fp32", block_size, warps)
        torch.testing.assert_close(output, input + 0.5 * other)
    with pytest.raises(
        LaunchError, match="no variant was built for size_=None, dtype_='fp32', block_size_=128"
    ):
        kernel(input, other, 0.5, output, None, "fp32", 128, None)


def test_dtype_values_are_ninetoothed_data_type_places(tmp_path):
    """A C caller passes NINETOOTHED_FLOAT32 where Python passes ninetoothed.float32."""
    nt = ninetoothed_for("cuda")
    program = tmp_path / "enum.cpp"
    names = ["INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"]
    names += ["FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64"]
    prints = "".join(f'printf("%d\\n", NINETOOTHED_{n});' for n in names)
    program.write_text(f'#include <stdio.h>\n#include "ninetoothed.h"\nint main() {{ {prints} }}\n')
    subprocess.run(["g++", f"-I{C_DIR}", str(program), "-o", str(tmp_path / "enum")], check=True)
    printed = subprocess.run([str(tmp_path / "enum")], capture_output=True, text=True).stdout
    dtypes = [nt.int8, nt.int16, nt.int32, nt.int64, nt.uint8, nt.uint16, nt.uint32, nt.uint64]
    dtypes += [nt.float16, nt.bfloat16, nt.float32, nt.float64]
    assert [int(v) for v in printed.split()] == [config_int(d, "dtype") for d in dtypes]
    assert len(DTYPE_ORDER) == len(names)


@pytest.mark.parametrize("backend", ["cuda", "triton"])
def test_builds_for_a_gpu_here(backend, tmp_path):
    """A library of variants for a CUDA GPU (nvcc for sm_90; Triton's cubins) builds and loads on
    this machine; a call with tensors on the CPU is refused before anything runs."""
    nt = ninetoothed_for(backend)
    configs = [
        ((), {"dtype": nt.float16, "block_size": 64}, {}),
        ((), {"dtype": nt.float32, "block_size": 128}, {}),
    ]
    kernel = built(nt, configs, "cuda", "add_gpu", tmp_path)
    assert (tmp_path / "add_gpu.so").is_file()
    x = torch.zeros(8)
    with pytest.raises(LaunchError, match="is on cpu; the kernel runs on cuda"):
        kernel(x, x, 1.0, x, None, "fp32", 128)
