"""The CUDA C++ backend on the kernel suite: every kernel lowers through the default pipeline, runs
on the CPU through the host shim against torch, and its source compiles with nvcc for sm_90 (PTX).
Nothing runs on a GPU here (test_cuda_launcher.py builds the GPU library with its entry)."""

from __future__ import annotations

import functools
import math
import re
import shutil

import pytest
import torch
from conftest import poisoned

import compiler.dsl
import compiler.dsl.language as ntl
from compiler.backends import build_artifact, get_target, lower_unified_ssa_artifact
from compiler.ir import parse_kernel
from compiler.runtime import launch
from compiler.runtime.cuda_build import compile_ptx
from compiler.suite import SUITE, load_program
from compiler.suite.checking import build, check
from compiler.suite.loader import bound_arrangement

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")


@functools.cache
def checked(name: str):
    """Lowered once per kernel, run on fresh inputs with poisoned outputs, compared with torch."""
    return check(SUITE[name], backend="cuda")


@pytest.mark.parametrize("name", sorted(SUITE))
def test_suite_kernel_runs_on_the_cpu_shim(name):
    result = checked(name)
    assert result.passed, f"{name}: max error {result.max_error}"


@needs_nvcc
@pytest.mark.parametrize("name", sorted(SUITE))
def test_suite_kernel_compiles_for_sm_90(name):
    ptx = compile_ptx(checked(name).artifact.source, name)
    assert ".target sm_90" in ptx and f".visible .entry {name}(" in ptx


def test_parameters_keep_their_names_unless_cpp_uses_them():
    ir = """
kernel @scaled(%exp: buffer<f32>, %new: index, %x: f32) attributes {grid = "1"} {
  %0 = index.program_id() {axis = 0} : index
  %1 = mem.load(%exp, %0) : f32
  %2 = math.exp(%1) : f32
  %3 = arith.mul(%2, %x) : f32
  mem.store(%exp, %new, %3)
}
"""
    source = build_artifact(parse_kernel(ir), get_target("cuda")).source
    assert "float* __restrict__ exp_, int new_, float x)" in source
    assert "exp(" in source


PARAMS = "%x: buffer<f32>, %h: buffer<f16>, %b: buffer<bf16>, %k: buffer<i32>, %out: buffer<f32>"
SPELLINGS = f'kernel @spellings({PARAMS}, %iout: buffer<i32>) attributes {{grid = "1"}} {{'
SPELLINGS += """
  %0 = index.program_id() {axis = 0} : index
  %1 = mem.load(%x, %0) : f32
  %2 = math.exp(%1) : f32
  %3 = math.exp2(%1) : f32
  %4 = math.log(%1) : f32
  %5 = math.log2(%1) : f32
  %6 = math.sqrt(%1) : f32
  %7 = math.rsqrt(%1) : f32
  %8 = math.sin(%1) : f32
  %9 = math.cos(%1) : f32
  %10 = arith.neg(%1) : f32
  %11 = math.abs(%10) : f32
  %12 = math.pow(%1, %1) : f32
  %13 = arith.add(%2, %3) : f32
  %14 = arith.sub(%13, %4) : f32
  %15 = arith.mul(%14, %5) : f32
  %16 = arith.div(%15, %6) : f32
  %17 = arith.add(%16, %7) : f32
  %18 = arith.add(%17, %8) : f32
  %19 = arith.add(%18, %9) : f32
  %20 = arith.add(%19, %11) : f32
  %21 = arith.add(%20, %12) : f32
  %22 = arith.constant() {value = 0} : index
  mem.store(%out, %22, %21)
  %23 = mem.load(%h, %0) : f16
  %24 = arith.mul(%23, %23) : f16
  %25 = arith.add(%24, %23) : f16
  %26 = math.exp(%23) : f16
  %27 = arith.max(%25, %26) : f16
  %28 = arith.cast(%27) {dtype = "f32"} : f32
  %29 = arith.constant() {value = 1} : index
  mem.store(%out, %29, %28)
  %30 = mem.load(%b, %0) : bf16
  %31 = arith.mul(%30, %30) : bf16
  %32 = arith.min(%31, %30) : bf16
  %33 = arith.cast(%32) {dtype = "f32"} : f32
  %34 = arith.constant() {value = 2} : index
  mem.store(%out, %34, %33)
  %35 = mem.load(%k, %0) : i32
  %36 = arith.constant() {value = 3} : i32
  %37 = arith.idiv(%35, %36) : i32
  %38 = arith.irem(%35, %36) : i32
  %39 = arith.add(%37, %38) : i32
  mem.store(%iout, %22, %39)
  %40 = arith.and(%35, %36) : i32
  %41 = arith.or(%35, %36) : i32
  %42 = arith.xor(%40, %41) : i32
  mem.store(%iout, %29, %42)
  %43 = arith.constant() {value = 1.0} : f32
  %44 = arith.cmp(%1, %43) {pred = "lt"} : i1
  %45 = arith.not(%44) : i1
  %46 = select.where(%45, %1, %10) : f32
  %47 = arith.constant() {value = 3} : index
  mem.store(%out, %47, %46)
  %48 = arith.cast(%45) {dtype = "i32"} : i32
  mem.store(%iout, %34, %48)
  %49 = arith.cmp(%1, %10) {pred = "lt"} : i1
  %50 = mem.load(%x, %0, %49) {other = -inf} : f32
  %51 = arith.constant() {value = 4} : index
  mem.store(%out, %51, %50)
  %52 = arith.constant() {value = 5} : index
  mem.store(%out, %52, %1, %49)
  %53 = arith.add(%35, %35) : i32
  %54 = arith.cast(%53) {dtype = "index"} : index
  %55 = arith.cast(%54) {dtype = "f32"} : f32
  %56 = arith.constant() {value = 6} : index
  mem.store(%out, %56, %55)
  %57 = tile.arange() {size = 2} : tile<index[2]>
  %58 = arith.constant() {value = 7} : index
  %59 = tile.broadcast(%58) {shape = [2]} : tile<index[2]>
  %60 = arith.add(%59, %57) : tile<index[2]>
  %61 = arith.cast(%57) {dtype = "f32"} : tile<f32[2]>
  mem.store(%out, %60, %61)
}
"""


def spellings_expected(x, h, b, k):
    """What SPELLINGS stores, computed by torch from the same one-element inputs."""
    first = (x.exp() + x.exp2() - x.log()) * x.log2() / x.sqrt() + x.rsqrt() + x.sin() + x.cos()
    out = [
        first + x.abs() + x.pow(x),
        torch.maximum(h * h + h, h.float().exp().half()).float(),
        torch.minimum(b * b, b).float(),
        torch.where(x < 1, -x, x),
        torch.tensor([-math.inf]),
        torch.tensor([math.nan]),
        (2 * k).float(),
        torch.tensor([0.0]),
        torch.tensor([1.0]),
    ]
    quotient = torch.div(k, 3, rounding_mode="trunc")
    remainder = torch.fmod(k, 3)
    iout = [quotient + remainder, (k & 3) ^ (k | 3), (x >= 1).int()]
    return torch.cat(out), torch.cat(iout).int()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_spelling_computes_what_torch_does(seed):
    """Each op of the spelling table through the default pipeline (f16 math widened, a small tile
    made a loop), run on the CPU shim on random inputs; the same source through nvcc."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand(1, generator=gen) * 1.8 + 0.2  # > 0: log, sqrt and pow stay real
    h = torch.randn(1, generator=gen).half()
    b = torch.randn(1, generator=gen).bfloat16()
    k = torch.randint(-50, 50, (1,), generator=gen, dtype=torch.int32)
    artifact = lower_unified_ssa_artifact(parse_kernel(SPELLINGS), "cuda")
    out, iout = poisoned(9), torch.full((3,), -99, dtype=torch.int32)
    values = {"x": x, "h": h, "b": b, "k": k}
    launch(artifact, values | {"out": out, "iout": iout})
    want, want_int = spellings_expected(x, h, b, k)
    torch.testing.assert_close(out, want, equal_nan=True)
    assert torch.equal(iout, want_int)
    if shutil.which("nvcc"):
        assert ".visible .entry spellings(" in compile_ptx(artifact.source, "spellings")


F16_DOTS = {"matmul_fp16", "bmm_fp16", "flash_attention", "flash_attention_causal"}
F32_DOTS = {"matmul", "bmm", "addmm", "conv2d"}  # each permits TF32 products (Triton's default)


@needs_nvcc
@pytest.mark.parametrize("name", sorted(SUITE))
def test_dots_run_on_tensor_cores(name):
    """A dot of f16 tiles, or of f32 ones permitting TF32 products, in whole 16 x 16 x 16 blocks
    is one block-wide `ntc_dot` (WMMA in the PTX: 16 x 16 x 16 steps of f16, 16 x 16 x 8 of
    TF32); the CPU shim runs the same call (test above). The sum lives in the warps' accumulator
    fragments, registers (no local memory in the PTX); a dot a loop adds to its carried tile sums
    into that tile in place, loaded into the fragments once before the loop instead of starting
    from zero each time (a sum the loop rescales first too: the next test)."""
    artifact = checked(name).artifact
    dots = name in F16_DOTS | F32_DOTS
    assert ("linalg.dot" in artifact.initial_ssa) == dots
    ptx = compile_ptx(artifact.source, name)
    assert ("ntc_dot<" in artifact.source) == dots
    assert ("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in ptx) == (name in F16_DOTS)
    tf32 = "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32"
    assert (tf32 in ptx) == (name in F32_DOTS)
    assert (", true>(" in artifact.source) == dots
    assert ("wmma.load.c.sync" in ptx) == dots
    assert ("ntc_accumulator<" in artifact.source) == dots
    assert not re.search(r"\.local\b", ptx)


@needs_nvcc
@pytest.mark.parametrize("name", ["flash_attention", "flash_attention_causal"])
def test_a_rescaled_sum_stays_in_the_fragments(name):
    """A loop that rescales its sum by a row's factor before adding a dot (`acc * alpha[:, None]
    + dot(p, v)`) rescales the accumulator fragments where they are: each thread walks its own
    elements (ntc_owned_slots, ntc_owned_position), the dot adds to them, and the sum is copied
    in once before the loop and out once after, never through shared memory per iteration. The
    CPU shim walks its slots last to first, so the suite's run of these kernels against torch
    fails where a slot is taken for a position."""
    source = checked(name).artifact.source
    (total,) = re.findall(r"ntc_dot<[^>]*, true>\(\w+, \w+, (\w+)\);", source)
    assert f"ntc_owned_position({total}, " in source and f"ntc_owned_slots({total})" in source
    assert len(re.findall(rf"ntc_copy\({total}, \w+\);", source)) == 1
    assert len(re.findall(rf"ntc_copy\(\w+, {total}\);", source)) == 1
    ptx = compile_ptx(source, name)
    assert "ntc_positions" in ptx and not re.search(r"\.local\b", ptx)


@needs_nvcc
def test_exact_f32_dots_stay_thread_loops():
    """A dot asking for exact products (`input_precision="ieee"`) keeps f32 arithmetic."""
    kernel = SUITE["matmul"]
    module = load_program(kernel.path, compiler.dsl)
    arrangement = bound_arrangement(module.arrangement, kernel.arrangement_kwargs)

    def exact(input, other, output):
        accumulator = ntl.zeros(output.shape, dtype=ntl.float32)
        for k in range(input.shape[0]):
            accumulator += ntl.dot(input[k], other[k], input_precision="ieee")
        output = accumulator  # noqa: F841

    for device in ("cpu", "cuda"):
        handle = compiler.dsl.make(
            arrangement, exact, module.tensors, backend="cuda", device=device
        )
        source = handle.compile_declared().source
        assert "ntc_dot<" not in source and "ntc_accumulator<" not in source
    assert "wmma" not in compile_ptx(source, "exact")
    x, y = torch.randn(48, 80), torch.randn(80, 40)
    out = poisoned(48, 40)
    compiler.dsl.make(arrangement, exact, module.tensors, backend="cuda")(x, y, out)
    torch.testing.assert_close(out, x @ y, rtol=1e-5, atol=1e-4)


@needs_nvcc
def test_bf16_dots_run_on_tensor_cores():
    artifact = build(SUITE["matmul"], "cuda", "cuda").compile_declared("bf16")
    assert "ntc_dot<" in artifact.source
    assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.bf16.bf16.f32" in compile_ptx(
        artifact.source, "matmul"
    )


@needs_nvcc
def test_tiles_each_thread_alone_touches_stay_in_its_registers():
    """vector_add's loaded tiles are only touched at each element's own position: every thread
    keeps its share in a private array of constant length (registers: no shared memory, no local
    memory in the PTX), and only the store loop keeps its barriers."""
    artifact = checked("vector_add").artifact
    assert "__shared__" not in artifact.source and "NTC_ROUNDS(" in artifact.source
    ptx = compile_ptx(artifact.source, "vector_add")
    assert not re.search(r"\.local\b", ptx)
    assert ptx.count("bar.sync") == 2
