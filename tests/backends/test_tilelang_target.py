"""The TileLang backend through the default pipeline. On the CPU (TileLang's C target): IR kernels
that exercise the spelling table, branch results, carried values and a dot loop run against torch
(the suite itself runs in tests/test_suite_backends.py). On CUDA: the form of every suite kernel
lowers to CUDA source and compiles with nvcc for sm_90 (nothing runs on a GPU here)."""

from __future__ import annotations

import dataclasses
import functools
import re
import shutil

import pytest
import torch
from conftest import load_ir, poisoned

from compiler.backends import lower_unified_ssa_artifact
from compiler.ir import parse_kernel
from compiler.ir.interpreter import run_kernel
from compiler.runtime import launch
from compiler.runtime.bindings import grid_size
from compiler.runtime.specialization import specialized
from compiler.runtime.tilelang_launcher import cuda_binary, cuda_source
from compiler.suite import SUITE
from compiler.suite.checking import build

HEAD = """
  %0 = index.program_id() {axis = 0} : index
  %1 = arith.constant() {value = 16} : index
  %2 = arith.mul(%0, %1) : index
  %3 = tile.arange() {size = 16} : tile<index[16]>
  %4 = tile.broadcast(%2) {shape = [16]} : tile<index[16]>
  %5 = arith.add(%4, %3) : tile<index[16]>
  %6 = tile.broadcast(%n) {shape = [16]} : tile<index[16]>
  %7 = arith.cmp(%5, %6) {pred = "lt"} : tile<i1[16]>
"""

# Truncating division and remainder, negation, min/max and casts on i32.
INTEGER_OPS = (
    """kernel @integer_ops(%a: buffer<i32>, %b: buffer<i32>, %q: buffer<i32>, %r: buffer<i32>,
%n: index) attributes {grid = "(n + 15) // 16"} {"""
    + HEAD
    + """
  %8 = mem.load(%a, %5, %7) {other = 0} : tile<i32[16]>
  %9 = mem.load(%b, %5, %7) {other = 1} : tile<i32[16]>
  %10 = arith.idiv(%8, %9) : tile<i32[16]>
  %11 = arith.irem(%8, %9) : tile<i32[16]>
  %12 = arith.neg(%11) : tile<i32[16]>
  %13 = arith.max(%10, %12) : tile<i32[16]>
  %14 = arith.min(%10, %12) : tile<i32[16]>
  %15 = arith.sub(%13, %14) : tile<i32[16]>
  %16 = arith.cast(%15) {dtype = "f32"} : tile<f32[16]>
  %17 = arith.constant() {value = 0.5} : tile<f32[16]>
  %18 = arith.mul(%16, %17) : tile<f32[16]>
  %19 = arith.cast(%18) {dtype = "i32"} : tile<i32[16]>
  mem.store(%q, %5, %10, %7)
  mem.store(%r, %5, %19, %7)
}
"""
)

# Math functions (pow included), comparisons, logical ops on i1 and a select, in f32.
FLOAT_OPS = (
    """kernel @float_ops(%x: buffer<f32>, %y: buffer<f32>, %out: buffer<f32>, %n: index)
attributes {grid = "(n + 15) // 16"} {"""
    + HEAD
    + """
  %8 = mem.load(%x, %5, %7) {other = 1.0} : tile<f32[16]>
  %9 = mem.load(%y, %5, %7) {other = 1.0} : tile<f32[16]>
  %10 = math.abs(%8) : tile<f32[16]>
  %11 = math.sqrt(%10) : tile<f32[16]>
  %12 = math.rsqrt(%10) : tile<f32[16]>
  %13 = math.log(%10) : tile<f32[16]>
  %14 = math.log2(%10) : tile<f32[16]>
  %15 = math.exp(%9) : tile<f32[16]>
  %16 = math.exp2(%8) : tile<f32[16]>
  %17 = math.sin(%8) : tile<f32[16]>
  %18 = math.cos(%9) : tile<f32[16]>
  %19 = arith.add(%11, %12) : tile<f32[16]>
  %20 = arith.sub(%13, %14) : tile<f32[16]>
  %21 = arith.mul(%15, %16) : tile<f32[16]>
  %22 = arith.div(%17, %18) : tile<f32[16]>
  %23 = arith.add(%19, %20) : tile<f32[16]>
  %24 = arith.add(%21, %22) : tile<f32[16]>
  %25 = arith.cmp(%8, %9) {pred = "gt"} : tile<i1[16]>
  %26 = arith.constant() {value = 0.0} : tile<f32[16]>
  %27 = arith.cmp(%8, %26) {pred = "le"} : tile<i1[16]>
  %28 = arith.xor(%25, %27) : tile<i1[16]>
  %29 = arith.not(%28) : tile<i1[16]>
  %30 = select.where(%29, %23, %24) : tile<f32[16]>
  %31 = math.pow(%10, %9) : tile<f32[16]>
  %32 = arith.add(%30, %31) : tile<f32[16]>
  mem.store(%out, %5, %32, %7)
}
"""
)


def run_ir(text: str, bindings: dict) -> None:
    launch(lower_unified_ssa_artifact(parse_kernel(text), "tilelang"), bindings)


@pytest.fixture
def gen(request):
    return torch.Generator().manual_seed(hash(request.node.name) % 2**31)


def test_integer_ops_truncate_toward_zero(gen):
    n = 37
    a = torch.randint(-50, 50, (n,), generator=gen, dtype=torch.int32)
    b = torch.randint(1, 9, (n,), generator=gen, dtype=torch.int32) * (1 - 2 * (a % 2))
    q, r = (torch.full((n,), -12345, dtype=torch.int32) for _ in range(2))  # poisoned
    run_ir(INTEGER_OPS, {"a": a, "b": b, "q": q, "r": r, "n": n})
    quotient = torch.div(a, b, rounding_mode="trunc")
    remainder = a - quotient * b
    spread = (quotient - -remainder).abs()  # max(q, -r) - min(q, -r)
    assert torch.equal(q, quotient)
    assert torch.equal(r, (spread.float() * 0.5).int())  # the cast truncates too


def test_float_ops(gen):
    n = 45
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    out = poisoned(n)
    run_ir(FLOAT_OPS, {"x": x, "y": y, "out": out, "n": n})
    ax = x.abs()
    first = ax.sqrt() + ax.rsqrt() + (ax.log() - ax.log2())
    second = y.exp() * x.exp2() + x.sin() / y.cos()
    chosen = torch.where(~((x > y) ^ (x <= 0)), first, second)
    torch.testing.assert_close(out, chosen + ax.pow(y))


def test_branch_results_and_an_i32_buffer(gen):
    n = 77  # three programs: even, odd, even
    x = torch.randn(n, generator=gen)
    out, flags = poisoned(n), torch.full((4,), -7, dtype=torch.int32)
    launch(
        lower_unified_ssa_artifact(load_ir("parity_branch"), "tilelang"),
        {"x": x, "out": out, "flags": flags, "n": n},
    )
    even = (torch.arange(n) // 32) % 2 == 0
    torch.testing.assert_close(out, torch.where(even, 2 * x, -x))
    assert flags.tolist() == [1, -1, -7, -7]


def test_f16_buffers_and_a_float_argument(gen):
    n = 200
    x = (2 * torch.randn(n, generator=gen)).half()
    out = poisoned(n, dtype=torch.float16)
    artifact = lower_unified_ssa_artifact(load_ir("leaky_clamp_f16"), "tilelang")
    launch(artifact, {"x": x, "out": out, "alpha": 0.1, "n": n})
    xf = x.float()
    torch.testing.assert_close(out, torch.where(xf > 0, xf, 0.1 * xf).clamp(-0.5, 1.5).half())


@pytest.mark.parametrize("steps", [0, 5])
def test_carried_values_swap(steps, gen):
    n = 50
    x, y = torch.randn(n, generator=gen), torch.randn(n, generator=gen)
    outs = {name: poisoned(n) for name in ("out_x", "out_y", "out_s")}
    artifact = lower_unified_ssa_artifact(load_ir("swap_loop"), "tilelang")
    launch(artifact, {"x": x, "y": y, **outs, "steps": steps, "n": n})
    first, second = (x, y) if steps % 2 == 0 else (y, x)
    torch.testing.assert_close(outs["out_x"], first)
    torch.testing.assert_close(outs["out_y"], second)
    torch.testing.assert_close(outs["out_s"], (steps + 1) // 2 * x + steps // 2 * y)


def test_dot_in_a_loop_over_strided_views(gen):
    m, n, k = 37, 45, 29
    a, b = torch.randn(m, k, generator=gen), torch.randn(n, k, generator=gen).t()
    c = poisoned(m, n)
    bindings = {"a": a, "b": b, "c": c, "M": m, "N": n, "K": k}
    for name, tensor in (("a", a), ("b", b), ("c", c)):
        bindings |= {f"{name}_stride_{d}": tensor.stride(d) for d in range(2)}
    launch(lower_unified_ssa_artifact(load_ir("tiled_dot_loop"), "tilelang"), bindings)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)


@functools.cache
def cuda_form(name: str):
    """The suite kernel lowered for device "cuda" (sizes from its usual arguments)."""
    kernel = SUITE[name]
    return build(kernel, "tilelang", "cuda").compile(*kernel.make_args(0), **kernel.call_kwargs)


@pytest.mark.parametrize("options, warps", [({}, 2), ({"num_warps": 8}, 8)])
def test_cuda_block_has_a_thread_per_element_of_the_largest_tile(options, warps):
    ir = load_ir("masked_add")  # 64-element tiles: two warps, unless the caller says
    artifact = lower_unified_ssa_artifact(ir, "tilelang", device="cuda", options=options)
    assert artifact.num_warps == warps
    assert f"__launch_bounds__({warps * 32}, 1) masked_add_kernel(" in cuda_source(artifact)
    assert lower_unified_ssa_artifact(ir, "tilelang", options=options).num_warps is None


@pytest.mark.parametrize("name", sorted(SUITE))
def test_cuda_form_of_suite_kernel_lowers_and_compiles_for_sm_90(name):
    artifact = cuda_form(name)
    cuda = cuda_source(artifact)
    assert f"__launch_bounds__({artifact.num_warps * 32}, 1) {name}_kernel(" in cuda
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    assert cuda_binary(cuda, "sm_90").startswith(b"\x7fELF")


F16_DOTS = {"matmul_fp16", "bmm_fp16", "flash_attention", "flash_attention_causal"}
F32_DOTS = {"matmul", "bmm", "addmm", "conv2d"}  # each permits TF32 products (Triton's default)
ATTENTION = {"flash_attention", "flash_attention_causal"}  # a transposed dot and a rescaled sum


@pytest.mark.parametrize("name", sorted(SUITE))
def test_cuda_form_runs_dots_as_gemm_on_tensor_cores(name):
    """Each dot of f16 tiles, or of f32 ones permitting TF32 products, is one `T.gemm` on the
    shared arrays viewed 2-D, its sum in a fragment; TileLang lowers it to `mma` instructions of
    the operands' kind (f16, TF32). The warps are as many as split each dot's result into 16 x 8
    blocks. The C form keeps loops. A dot a loop adds to its carried
    tile sums into one fragment for the whole loop, not into a cleared one per iteration: the
    fragment is the tile, filled with its init and read by what follows the loop in `T.Parallel`
    loops over it, with no shared array copied in or out; so does attention's, whose sum the
    loop rescales in that fragment first, while its `q @ k^T` starts from zero and is copied
    out."""
    artifact = cuda_form(name)
    gemm = name in F16_DOTS | F32_DOTS
    assert ("T.gemm(ntc_view(" in artifact.source) == gemm
    sums = re.findall(r"T\.gemm\(ntc_view\(.*?\), ntc_view\(.*?\), (\w+),", artifact.source)
    assert sums and all(f"{c} = T.alloc_fragment((" in artifact.source for c in sums) or not gemm
    kinds = set(re.findall(r"tl::mma_sync<tl::DataType::(\w+)", cuda_source(artifact)))
    assert kinds == ({"kFloat16"} if name in F16_DOTS else {"kTensorFloat32"} if gemm else set())
    accumulated = gemm
    assert ("clear_accum=False" in artifact.source) == accumulated
    assert artifact.source.count("clear_accum=True") == int(name in ATTENTION)
    fragment_copies = [
        line for line in artifact.source.splitlines() if "T.copy(" in line and "Strided" not in line
    ]
    assert len(fragment_copies) == artifact.source.count("clear_accum=True")
    if gemm:
        m, _, n = map(
            int,
            re.search(
                r"\[(\d+), \d+\]\), ntc_view\(\w+, \[(\d+), (\d+)\]\), \w+, clear", artifact.source
            ).groups(),
        )
        assert artifact.num_warps == m // 16 * (n // 8)
        kernel = SUITE[name]
        cpu = build(kernel, "tilelang").compile(*kernel.make_args(0), **kernel.call_kwargs)
        assert "T.gemm" not in cpu.source


def test_dots_whose_rows_split_the_warps_build_as_hoppers_wgmma():
    """At the benchmark's attention blocks (128 x 64, 8 warps) the warps split a dot's rows
    only (`FullRow`), each whole 16-row blocks of the full width: on sm_90a both gemms become
    wgmma, the second too, 16 columns wide (the head dim), which the default split of its
    columns leaves no wgmma layout for (TileLang: "Not a canonical GMMA_MN layout"). Where the
    rows do not give every warp 16 (the suite's 16-row blocks over 2 warps), the default."""
    kernel = SUITE["flash_attention"]
    kernel = dataclasses.replace(kernel, arrangement_kwargs=kernel.bench_arrangement_kwargs)
    handle = build(kernel, "tilelang", "cuda")
    artifact = handle.compile(*kernel.make_args(0, ragged=False), **kernel.call_kwargs)
    assert artifact.num_warps == 8
    assert artifact.source.count("policy=T.GemmWarpPolicy.FullRow") == 2
    assert "GemmWarpPolicy" not in cuda_form("flash_attention").source
    cuda = cuda_source(artifact, "sm_90a")
    assert "tl::wgmma_ss" in cuda
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    assert cuda_binary(cuda, "sm_90a").startswith(b"\x7fELF")


PIPELINED = {"matmul", "matmul_fp16", "bmm", "bmm_fp16", "addmm", *ATTENTION}


@pytest.mark.parametrize("name", sorted(F16_DOTS | F32_DOTS))
def test_cuda_form_copies_dot_operands_in_a_pipelined_loop(name):
    """The tiles a matmul-like loop loads only for its dot are boxes of strided views: `T.copy`
    each, into shared arrays of their 2-D shape, the loop `T.Pipelined`, which TileLang lowers to
    asynchronous copies (`cp.async`) of the next iterations' tiles while this one's gemm runs.
    Where the sum is stored from the array the accumulator fills (f32 results), that store is a
    `T.copy` too. Convolution's im2col loads are no boxes. Attention copies its keys and values
    as boxes, the keys read by `T.gemm(..., transpose_B=True)` (its `dot(q, trans(k))`); its
    loop does more between them, which TileLang's planner orders (`pipeline_interleaved`), one
    stage deep for its trip count known only at run time (`pipeline_runtime_depth`)."""
    artifact = cuda_form(name)
    pipelined = name in PIPELINED
    copies_in = artifact.source.count("T.copy(T.StridedTensor(")
    assert copies_in == (2 if pipelined else 0)
    assert artifact.source.count("transpose_B=True") == int(name in ATTENTION)
    assert ("T.Pipelined(" in artifact.source) == pipelined
    stages = 1 if name in ATTENTION else 2
    assert (f"num_stages={stages})" in artifact.source) == pipelined
    assert ("tl::cp_async_commit" in cuda_source(artifact)) == pipelined
    stored = [line for line in artifact.source.splitlines() if "T.copy(ntc_view" in line]
    stored = [line for line in stored if "T.StridedTensor(" in line]
    assert len(stored) == int(name in {"matmul", "bmm"})


@pytest.mark.parametrize(("name", "stages"), [("matmul_fp16", 2), ("flash_attention", 1)])
def test_a_programs_deeper_pipeline_is_bounded_where_tilelang_cannot_build_it(name, stages):
    """A program asking for 3 stages (NineToothed's `num_stages=3`) gets as many as TileLang
    0.1.15 builds for a loop whose trip count is known only at run time (deeper, its CUDA
    codegen fails on the epilogue's wait count), and a remark in the trace says so."""
    kernel = SUITE[name]
    handle = build(kernel, "tilelang", "cuda")
    handle.schedule_options["num_stages"] = 3
    artifact = handle.compile(*kernel.make_args(0), **kernel.call_kwargs)
    assert f"num_stages={stages})" in artifact.source
    remarks = [r for entry in artifact.trace for r in entry["remarks"]]
    assert any(f"runs in {stages} stages, not 3" in r for r in remarks)
    assert "tl::cp_async_commit" in cuda_source(artifact)


@pytest.mark.parametrize("ragged", [True, False], ids=["ragged", "whole"])
@pytest.mark.parametrize(
    "name", ["matmul", "matmul_fp16", "bmm", "addmm", "flash_attention_causal"]
)
def test_cuda_form_ir_matches_torch_in_the_interpreter(name, ragged):
    """No GPU here: the final IR of the CUDA form a launch runs (box copies, pipelined loop,
    block dot; specialized to the unit strides, and on whole tiles to the sizes and strides 16
    divides) runs in the reference interpreter on fresh inputs, outputs poisoned first, against
    torch. Attention's key loop, with its rescaled sum and its copies between other work, is
    pipelined one stage deep."""
    kernel = SUITE[name]
    handle = build(kernel, "tilelang", "cuda")
    args = kernel.make_args(3, ragged=ragged)
    expected = kernel.reference(args)
    for index in kernel.outputs:
        args[index].fill_(float("nan"))
    bindings = handle.bindings(*args, **kernel.call_kwargs)
    artifact = specialized(handle.compile(*args, **kernel.call_kwargs), bindings)
    # Attention's ragged arguments are ragged in their sequence length only: their strides,
    # multiples of the head dim (16), still specialize.
    assert ("multiple_arguments" in artifact.ssa) is not (ragged and name not in ATTENTION)
    ir = parse_kernel(artifact.ssa)
    stages = 1 if name in ATTENTION else 2
    assert "mem.copy_box_in" in artifact.ssa and f"stages = {stages}" in artifact.ssa
    values = {}
    for arg in ir.args:
        bound = bindings[arg.name]
        assert not isinstance(bound, torch.Tensor) or bound.is_contiguous()
        values[arg.name] = bound.view(-1).numpy() if isinstance(bound, torch.Tensor) else bound
    run_kernel(ir, values, dict(artifact.schedule), grid_size(artifact, bindings))
    for index, want in zip(kernel.outputs, expected, strict=True):
        torch.testing.assert_close(args[index], want, rtol=kernel.rtol, atol=kernel.atol)


@pytest.mark.parametrize("name", ["matmul_fp16", "bmm_fp16"])
def test_a_launch_on_aligned_whole_tiles_copies_fp16_as_async_vectors(name):
    """A launch on 16-byte aligned tensors runs the kernel specialized to what they show: unit
    strides the constant 1, the sizes and strides 16 divides read as multiples of 16. TileLang
    then proves each copied row starts aligned and moves fp16 tiles with `cp.async` of whole
    vectors; the general form (strides known only at launch) copies 2-byte elements one by one,
    synchronously. A launch with a misaligned tensor runs the general form, which assumes
    nothing of where a buffer starts."""
    kernel = SUITE[name]
    handle = build(kernel, "tilelang", "cuda")
    args = kernel.make_args(0, ragged=False)
    general = handle.compile(*args, **kernel.call_kwargs)
    launched = specialized(general, handle.bindings(*args, **kernel.call_kwargs))
    assert "cp_async_gs" not in cuda_source(general)
    assert len(re.findall(r"cp_async_gs_conditional<(?:8|16)>", cuda_source(launched))) == 4
    room = torch.empty(args[0].numel() + 1, dtype=args[0].dtype)
    shifted = [room[1:].view_as(args[0]).copy_(args[0]), *args[1:]]
    assert shifted[0].data_ptr() % 16
    assert specialized(general, handle.bindings(*shifted, **kernel.call_kwargs)) is general


@pytest.mark.parametrize("name", ["softmax", "rms_norm", "sum_1d", "flash_attention"])
def test_cuda_form_reduces_f32_tiles_block_wide(name):
    """Each f32 reduction is one `T.reduce_*` on the arrays viewed [outer, length, inner], which
    TileLang lowers to its all-reduce across the block's threads; the C form keeps loops."""
    artifact = cuda_form(name)
    assert "T.reduce_" in artifact.source
    assert "tl::AllReduce<" in cuda_source(artifact)
    kernel = SUITE[name]
    cpu = build(kernel, "tilelang").compile(*kernel.make_args(0), **kernel.call_kwargs)
    assert "T.reduce_" not in cpu.source


def test_cuda_form_keeps_tiles_each_thread_alone_touches_in_fragments():
    """vector_add's loaded tiles are touched only at each element's own position, so on CUDA they
    are fragments (registers, laid out by TileLang to match the T.Parallel loops over them), not
    shared memory; the C form keeps local arrays."""
    artifact = cuda_form("vector_add")
    assert "T.alloc_fragment((" in artifact.source and "T.alloc_shared" not in artifact.source
    assert "__shared__" not in cuda_source(artifact)
    kernel = SUITE["vector_add"]
    cpu = build(kernel, "tilelang").compile(*kernel.make_args(0), **kernel.call_kwargs)
    assert "T.alloc_fragment" not in cpu.source


def test_cuda_form_runs_elementwise_loops_over_the_tiles_own_shape():
    """Attention's [16, 16] tiles: their arrays (fragments and shared alike) have the tile's
    shape, and the loops over their elements are `T.Parallel(16, 16)`, not one flat loop of 256;
    the rows' [16] tiles keep 1-D loops. The C form's loops stay serial."""
    artifact = cuda_form("flash_attention")
    source = artifact.source
    assert "T.alloc_fragment((16, 16), T.float32)" in source
    assert "(256,)" not in source
    assert source.count("T.Parallel(16, 16)") >= 5
    kernel = SUITE["flash_attention"]
    cpu = build(kernel, "tilelang").compile(*kernel.make_args(0), **kernel.call_kwargs)
    assert "T.Parallel" not in cpu.source
