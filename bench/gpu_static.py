"""`make gpu-static`: what the GPU forms of the suite kernels are, shown without a GPU.

For every suite kernel, the CUDA C++ backend's GPU form and TileLang's CUDA lowering of its CUDA
form are compiled by nvcc for sm_90 (TileLang's for sm_90a, as TileLang builds on Hopper) with
`ptxas -v`: registers per thread, static shared memory, the stack frame (local memory: arrays that
did not fit registers), bytes spilled, the warp shuffles, vector global accesses and the tensor-core
instructions (`mma`, `wgmma`) in the PTX; for TileLang also the tile operations its program uses.
Each form is the one a launch on the suite's (contiguous, aligned) tensors runs: specialized to
what they show (compiler/runtime/specialization.py). A second table shows the same for the
benchmark's launch (bench/gpu.py: its tensors, the block sizes it gives each backend): CUDA C++'s
vector accesses, where each thread has several elements, and the tensor-core instructions of
TileLang's larger tiles (wgmma on sm_90a). A third compares those forms, and our Triton form, with
NineToothed 0.26's own Triton for the same program, both Triton forms compiled by Triton for sm_90
as the benchmark's launch would (bench/sm90/): metric by metric in the SASS, with the reason
wherever ours is worse. Writes `bench/results/gpu_static.md` with the targets of issues 13 and 33
and whether each is met. Needs nvcc and a process where Triton compiles (`TRITON_INTERPRET` unset),
no GPU.

    python bench/gpu_static.py [--kernel NAME ...] [--out PATH]
"""

from __future__ import annotations

import argparse
import datetime
import math
import re
from dataclasses import dataclass
from pathlib import Path

import torch
from sm90 import parity, triton_build  # bench/sm90/, beside this script
from sm90.nvcc import compile_for_sm90
from sm90.sass import Sass
from sm90.settings import bench_settings, bench_tensors, launched

from compiler.runtime.cuda_build import ARCH, SHIM_DIR
from compiler.suite import SUITE
from compiler.suite.checking import build

RESULTS = Path(__file__).parent / "results" / "gpu_static.md"
# TileLang builds for sm_90a on a Hopper GPU (its nvcc wrapper adds the `a` from sm_90 on), where
# its gemm may be wgmma; for plain sm_90 those templates compile to nothing.
TILELANG_ARCH = f"{ARCH}a"
BACKENDS = ("cuda", "tilelang")
TENSOR_CORE = re.compile(r"^\s*(wgmma\.\S+|mma\.sync\.\S+|wmma\.mma\.\S+)", re.MULTILINE)
ALLOC_SHARED = re.compile(r"T\.alloc_shared\(\(([\d, ]+)\), T\.(\w+)\)")
TILE_OPS = ("T.copy", "T.gemm", "T.reduce", "T.Pipelined", "T.alloc_fragment", "T.Parallel")
# `T.Parallel` over a 2-D tile's own dims; the kernels whose elementwise work is on such tiles.
PARALLEL_NEST = re.compile(r"T\.Parallel\(\d+, \d+\)")
TILES_2D = ("matmul", "bmm", "conv2d", "flash_attention", "softmax", "rms_norm")
ATTENTION = ("flash_attention", "flash_attention_causal")
NO_SPILLS = ("matmul", "matmul_fp16", *ATTENTION)
TENSOR_CORES = ("matmul_fp16", "bmm_fp16", "flash_attention")
TF32_DOTS = ("matmul", "bmm", "addmm", "conv2d")  # f32 dots permitting TF32 (Triton's default)
ELEMENTWISE = ("vector_add", "fused_elementwise")  # every tile touched by its own thread only
REDUCTIONS = ("softmax", "rms_norm", "sum_1d")
SHUFFLE = re.compile(r"^\s*shfl\.sync\.", re.MULTILINE)
ASYNC_COPY = re.compile(r"^\s*cp\.async\.c[ag]\.\S+ \[[^]]*\], \[[^]]*\], (\d+)", re.MULTILINE)
VECTOR_ACCESS = re.compile(r"^\s*(?:ld\.global(?:\.nc)?|st\.global)\.v[248]\.", re.MULTILINE)
# At GPU block sizes: elementwise, row and dot kernels whose tiles are rows of contiguous tensors.
VECTORIZED = ("vector_add", "fused_elementwise", "softmax", "rms_norm", "matmul", "matmul_fp16")
VECTORIZED += ("bmm", "bmm_fp16", "flash_attention")
PIPELINED = ("matmul", "matmul_fp16", "bmm", "bmm_fp16")  # loops of box copies and a dot
# A T.copy of a box into an array, and the stages of a pipelined loop (each a buffer of it).
BOX_COPY_INTO = re.compile(r"T\.copy\(T\.StridedTensor\(.*?\], ntc_view\((\w+),")
STAGES = re.compile(r"T\.Pipelined\(.*num_stages=(\d+)\)")


@dataclass
class Form:
    kernel: str
    backend: str
    registers: int
    shared_bytes: int
    stack_bytes: int
    spilled_bytes: int
    shuffles: int  # warp shuffles in the PTX
    async_copies: dict[int, int]  # cp.async instructions in the PTX: bytes each -> count
    vector_accesses: int  # ld.global.v* / st.global.v* instructions in the PTX
    tensor_core: dict[str, int]  # PTX instruction -> count
    tile_ops: tuple[str, ...]  # TileLang operations in the program
    slot_walks: bool  # CUDA C++: a loop walks a thread's own elements of an accumulator
    sass: Sass
    num_warps: int


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="append", help="only these kernels (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the table")
    return parser.parse_args(argv)


def dynamic_shared_bytes(program: str) -> int:
    """TileLang places `T.alloc_shared` buffers in dynamic shared memory, which ptxas does not
    count: their sizes, from the program, the ones a pipelined loop copies into once per stage."""
    stages = STAGES.search(program)
    staged = set(BOX_COPY_INTO.findall(program)) if stages else set()
    total = 0
    for line in program.splitlines():
        found = ALLOC_SHARED.search(line)
        if found is None:
            continue
        shape, dtype = found.groups()
        elements = math.prod(int(n) for n in shape.replace(" ", "").split(",") if n)
        copies = int(stages.group(1)) if line.split("=")[0].strip() in staged else 1
        total += elements * getattr(torch, dtype).itemsize * copies
    return total


def gpu_form(name: str, backend: str, gpu_sizes: bool = False) -> Form:
    """The GPU form a launch on the suite's tensors runs; `gpu_sizes`: the one the benchmark's
    launch runs, on its tensors at its block sizes."""
    if gpu_sizes:
        kernel, call = bench_settings(SUITE[name], backend)
        args = bench_tensors(kernel)
    else:
        kernel, call = SUITE[name], dict(SUITE[name].call_kwargs)
        args = kernel.make_args(0, ragged=False)
    artifact, _ = launched(build(kernel, backend, "cuda"), args, call)
    if backend == "cuda":
        source = artifact.source
        flags = ["-std=c++17", "-include", str(SHIM_DIR / "ntc_cuda_device.h")]
        tile_ops: tuple[str, ...] = ()
    else:
        import tilelang

        from compiler.runtime.tilelang_launcher import cuda_source

        source = cuda_source(artifact, TILELANG_ARCH)
        flags = ["-std=c++20", "-w", f"-I{tilelang.env.TILELANG_TEMPLATE_PATH}"]
        flags += [f"-I{tilelang.env.CUTLASS_INCLUDE_DIR}"]
        tile_ops = tuple(op for op in TILE_OPS if op in artifact.source)
        tile_ops += ("T.Parallel(rows, cols)",) * bool(PARALLEL_NEST.search(artifact.source))
    arch = ARCH if backend == "cuda" else TILELANG_ARCH
    usage, ptx, sass = compile_for_sm90(source, artifact.kernel_name, flags, arch)
    registers, shared, stack, spilled = usage
    shared += dynamic_shared_bytes(artifact.source) if backend == "tilelang" else 0
    found: dict[str, int] = {}
    for instruction in TENSOR_CORE.findall(ptx):
        found[instruction] = found.get(instruction, 0) + 1
    shuffles, copies = len(SHUFFLE.findall(ptx)), {}
    for width in map(int, ASYNC_COPY.findall(ptx)):
        copies[width] = copies.get(width, 0) + 1
    vectors = len(VECTOR_ACCESS.findall(ptx))
    walks = "ntc_owned_position(" in artifact.source
    return Form(
        name,
        backend,
        registers,
        shared,
        stack,
        spilled,
        shuffles,
        copies,
        vectors,
        found,
        tile_ops,
        walks,
        sass,
        artifact.num_warps or 1,
    )


def table(forms: list[Form]) -> list[str]:
    rows = [
        "| kernel | backend | registers | shared memory | stack frame | spilled | shuffles "
        "| async copies | vector accesses | tensor-core instructions | TileLang tile operations |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for form in forms:
        cores = ", ".join(f"{n} x `{i}`" for i, n in sorted(form.tensor_core.items())) or "none"
        copies = ", ".join(f"{n} x {b} B" for b, n in sorted(form.async_copies.items())) or "0"
        tiles = ", ".join(f"`{op}`" for op in form.tile_ops) or (
            "-" if form.backend == "cuda" else "none"
        )
        rows.append(
            f"| {form.kernel} | {form.backend} | {form.registers} | {form.shared_bytes} B | "
            f"{form.stack_bytes} B | {form.spilled_bytes} B | {form.shuffles} | "
            f"{copies} | {form.vector_accesses} | {cores} | {tiles} |"
        )
    return rows


def targets(forms: list[Form], wide: list[Form], rows: list[parity.Row]) -> list[str]:
    """Issue 13's static targets and issue 33's Triton parity, each met or not, with the forms
    that miss it; `wide`: the forms at the benchmark's GPU block sizes; `rows`: those against
    NineToothed's Triton."""
    by_key = {(f.kernel, f.backend): f for f in forms}
    vectorized = [f for f in wide if f.backend == "cuda" and f.kernel in VECTORIZED]
    large = [f for f in wide if f.backend == "tilelang"]

    def verdict(misses: list[str], checked: int) -> str:
        if not checked:
            return "not checked (kernels not in this run)"
        return "met" if not misses else "**not met**: " + ", ".join(misses)

    spill = [by_key[k, b] for k in NO_SPILLS for b in BACKENDS if (k, b) in by_key]
    cores = [by_key[k, "cuda"] for k in TENSOR_CORES if (k, "cuda") in by_key]
    gemm = [by_key[k, "tilelang"] for k in TENSOR_CORES if (k, "tilelang") in by_key]
    tf32 = [by_key[k, b] for k in TF32_DOTS for b in BACKENDS if (k, b) in by_key]
    staged = [by_key[k, "tilelang"] for k in PIPELINED if (k, "tilelang") in by_key]
    keyed = [by_key[k, "tilelang"] for k in ATTENTION if (k, "tilelang") in by_key]
    nested = [by_key[k, "tilelang"] for k in TILES_2D if (k, "tilelang") in by_key]
    own = [by_key[k, b] for k in ELEMENTWISE for b in BACKENDS if (k, b) in by_key]
    reduced = [by_key[k, b] for k in REDUCTIONS for b in BACKENDS if (k, b) in by_key]
    rescaled = [f for f in [*forms, *wide] if f.backend == "cuda" and f.kernel in ATTENTION]
    return [
        "| target | result |",
        "|---|---|",
        "| every GPU form compiles for sm_90 (TileLang's: sm_90a) | met (every row above) |",
        "| 0 bytes spilled or on the stack in matmul and attention | "
        + verdict(
            [f"{f.kernel} {f.backend}" for f in spill if f.spilled_bytes or f.stack_bytes],
            len(spill),
        )
        + " |",
        "| elementwise tiles in registers: no shared memory, no stack in vector_add and "
        "fused_elementwise | "
        + verdict(
            [f"{f.kernel} {f.backend}" for f in own if f.shared_bytes or f.stack_bytes], len(own)
        )
        + " |",
        "| reductions across the block's threads: warp shuffles in softmax, rms_norm and sum_1d "
        "(CUDA), `T.reduce` (TileLang) | "
        + verdict(
            [
                f"{f.kernel} {f.backend}"
                for f in reduced
                if not (f.shuffles if f.backend == "cuda" else "T.reduce" in f.tile_ops)
            ],
            len(reduced),
        )
        + " |",
        "| tensor-core instructions in the CUDA PTX of the fp16 matmul, bmm and attention | "
        + verdict([f.kernel for f in cores if not f.tensor_core], len(cores))
        + " |",
        "| CUDA C++: attention's rescaled sum (`acc * alpha[:, None] + dot(p, v)`) stays in "
        "the tensor-core fragments, each thread rescaling its own elements "
        "(`ntc_owned_position`), at the suite's and the GPU block sizes | "
        + verdict([f.kernel for f in rescaled if not f.slot_walks], len(rescaled))
        + " |",
        "| TileLang's program of those kernels uses `T.gemm` | "
        + verdict([f.kernel for f in gemm if "T.gemm" not in f.tile_ops], len(gemm))
        + " |",
        "| f32 dots permitting TF32 (matmul, bmm, addmm, conv2d) on TF32 tensor cores, both "
        "backends | "
        + verdict(
            [
                f"{f.kernel} {f.backend}"
                for f in tf32
                if not any("tf32" in instruction for instruction in f.tensor_core)
            ],
            len(tf32),
        )
        + " |",
        "| TileLang: elementwise work on 2-D tiles (matmul, bmm, conv2d, attention, softmax, "
        "rms_norm) is `T.Parallel` over the tile's own rows and columns, on arrays of its shape | "
        + verdict(
            [f.kernel for f in nested if "T.Parallel(rows, cols)" not in f.tile_ops], len(nested)
        )
        + " |",
        "| TileLang: the dot loops of matmul and bmm (f32, fp16) copy their tiles with `T.copy` "
        "and are `T.Pipelined` | "
        + verdict(
            [f.kernel for f in staged if not {"T.copy", "T.Pipelined"} <= set(f.tile_ops)],
            len(staged),
        )
        + " |",
        "| TileLang: attention's key loop (its copies interleaved with other work, its trip "
        "count known at run time) copies keys and values with `T.copy` and is `T.Pipelined`, "
        "one stage deep (TileLang 0.1.15 builds no deeper such loop) | "
        + verdict(
            [f.kernel for f in keyed if not {"T.copy", "T.Pipelined"} <= set(f.tile_ops)],
            len(keyed),
        )
        + " |",
        "| TileLang: matmul's and bmm's copies are asynchronous, each a vector of 8 or 16 "
        "bytes (`cp.async` in the PTX), f32 and fp16 alike: a launch on aligned tensors whose "
        "sizes and strides 16 divides runs the kernel specialized to them, where TileLang "
        "proves each row starts aligned | "
        + verdict(
            [f.kernel for f in staged if not f.async_copies or min(f.async_copies) < 8],
            len(staged),
        )
        + " |",
        "| CUDA C++ at GPU block sizes: vector_add, fused_elementwise, softmax, rms_norm and "
        "the matmul, bmm and attention kernels load and store their contiguous tensors as "
        "vectors (`ld.global.v*`, `st.global.v*`), with no stack | "
        + verdict(
            [
                f.kernel
                for f in vectorized
                if not f.vector_accesses or f.stack_bytes or f.spilled_bytes
            ],
            len(vectorized),
        )
        + " |",
        "| TileLang at GPU block sizes: every kernel builds with no stack and nothing spilled, "
        "and the fp16 matmul, bmm and attention run their gemms as Hopper's `wgmma` | "
        + verdict(
            [
                f.kernel
                for f in large
                if f.stack_bytes
                or f.spilled_bytes
                or (f.kernel in TENSOR_CORES and not any("wgmma.mma" in i for i in f.tensor_core))
            ],
            len(large),
        )
        + " |",
        "| Triton: ours and NineToothed's Triton form of every kernel compile for sm_90 through "
        "Triton's launch path | met (every Triton row above) |",
        "| ours no worse than NineToothed's Triton on any metric, or the reason stated, in every "
        "row (our Triton, CUDA C++ and TileLang forms) | "
        + verdict(parity.unexplained(rows), len(rows))
        + " |",
    ]


def triton_rows(name: str) -> list[parity.Row]:
    """Our Triton form against NineToothed's, as the benchmark launches each, and again at
    NineToothed's `num_warps` and `num_stages`, where what differs is the code alone."""
    kernel = SUITE[name]
    args = bench_tensors(kernel)
    theirs = triton_build.ninetoothed(kernel, args)
    launch = {"num_warps": theirs.num_warps, "num_stages": theirs.num_stages}
    ours = triton_build.ours(kernel, args)
    same = triton_build.ours(kernel, args, launch)
    reference = parity.from_triton(theirs)
    return [
        parity.Row(name, "triton", parity.from_triton(ours), reference),
        parity.Row(name, parity.SAME_LAUNCH, parity.from_triton(same), reference),
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if triton_build.interpreting():
        print("gpu-static: TRITON_INTERPRET is set; unset it (Triton must compile, not interpret)")
        return 2
    kernels = args.kernel or sorted(SUITE)
    forms = []
    for name in kernels:
        for backend in BACKENDS:
            forms.append(gpu_form(name, backend))
            print(table(forms)[-1], flush=True)
    wide = []
    for name in kernels:
        for backend in BACKENDS:
            wide.append(gpu_form(name, backend, gpu_sizes=True))
            print(table(wide)[-1], flush=True)
    rows: list[parity.Row] = []
    for name in kernels:
        rows += triton_rows(name)
        theirs = rows[-1].theirs
        rows += [
            parity.Row(f.kernel, f.backend, parity.from_form(f), theirs)
            for f in wide
            if f.kernel == name
        ]
        print(*parity.table(rows)[-4:], sep="\n", flush=True)
    lines = [
        "# GPU forms without a GPU (sm_90)",
        "",
        f"{datetime.date.today()} · `python bench/gpu_static.py` · nvcc for {ARCH}, `ptxas -v` "
        "per kernel; registers are per thread; shared memory is per block, static (ptxas) plus "
        "TileLang's dynamic buffers (one per stage for those a pipelined loop copies into); the "
        "stack frame is local memory (arrays registers did not hold); spilled is spill stores plus "
        "spill loads; shuffles are the PTX's `shfl.sync`, async copies its `cp.async`.",
        "",
        *table(forms),
        "",
        "At the GPU block sizes the benchmark (bench/gpu.py) gives each backend "
        "(`SuiteKernel.bench_blocks`, by the target's `tile_cap`), on its tensors (`bench_args`, "
        "as shapes): in CUDA C++ each thread takes several consecutive elements (lanes) and "
        "loads and stores them as one vector; TileLang's tiles are 128 wide (its fp16 gemm "
        "wgmma):",
        "",
        *table(wide),
        "",
        "## Against NineToothed's Triton",
        "",
        parity.LEGEND.format(triton=triton_build.triton.__version__),
        "",
        *parity.table(rows),
        "",
        "Why ours is worse where it is:",
        "",
        *parity.reasons(rows),
        "",
        "## Targets",
        "",
        *targets(forms, wide, rows),
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
