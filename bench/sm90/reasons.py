"""Why one of our builds is worse than NineToothed's Triton on a metric, as found by reading both
(the sources, TTGIR and SASS, and by hand-edited sources compiled the same way where it says so).
`parity.py` names the reason beside the metric and the report lists the texts below its table.

`REASONS` maps (kernel, our form, metric) to a key of `TEXTS`; a kernel of None holds for every
kernel of that form. Keys name kernels explicitly where the reason is particular to them, so a
new shortfall elsewhere shows as unexplained rather than inheriting a reason that does not hold.
"""

from __future__ import annotations

from collections.abc import Iterable

TRITON = "triton"
SAME_LAUNCH = "triton, NineToothed's launch"  # parity.SAME_LAUNCH
TF32_DOTS = ("matmul", "bmm", "addmm", "conv2d")
FP16_DOTS = ("matmul_fp16", "bmm_fp16")
ATTENTION = ("flash_attention", "flash_attention_causal")
ROWS = ("softmax", "rms_norm", "sum_1d", "max_pool2d", "rotary_embedding")  # staged tiles
POINTWISE = ("vector_add", "fused_elementwise", "softmax", "rms_norm", "sum_1d")

TEXTS = {
    "four-warps": "our launch has 4 warps where NineToothed's has 8 (ssa.triton.optimize_schedule "
    "gives 8 from tiles of 16384 elements), so each thread holds and computes twice the "
    "elements: more registers and instructions per thread, fewer registers per block. The "
    "next row launches our source with NineToothed's warps and stages.",
    "addmm-epilogue": "the epilogue is NineToothed's (the input tile loaded after the loop, "
    "scaled, converted to the accumulator's layout, added, stored), but ours computes the "
    "output tile's offsets and mask after loading the input tile, while it and the "
    "accumulator (64 + 64 registers a thread) are live. With those lines moved before the load "
    "(by hand) ours takes 149 registers to NineToothed's 150, at either launch.",
    "matmul-hoisted-masks": "at 7 stages: ours ANDs each operand tile's row and column bounds "
    "once, before the loop, into a [128, 32] and a [32, 128] mask live across the pipelined "
    "loop; NineToothed's mask starts from the loop's own test and is rebuilt every iteration. "
    "Rebuilt in the loop (by hand), ours takes 110 registers for 80 more instructions; the "
    "other 4 are not traced. At our own 2 stages (row above) ours took 102 until d95b174 "
    "(found by bisection), which stopped checking an index against its own tile dim (always "
    "true): 8 fewer instructions, and ptxas gives the 2-stage loop 114 registers, 12 more (its "
    "allocation not traced further).",
    "rms-norm-weight-early": "the same loads, conversions, math and shuffles in both; ptxas issues "
    "ours' two 128-bit weight loads before the block-wide half of the sum (hiding their "
    "latency behind it), NineToothed's after it, so the weight's 8 registers are live across "
    "the reduction (5 more in all).",
    "elementwise-schedule": "one register: the same loads, math and store in both (ours 3 "
    "instructions fewer); ptxas interleaves the square roots and exponentials in another order.",
    "cuda-wmma": "CUDA C++ spells a dot with WMMA (`ntc_dot`: a warp's 16 x 16 fragments, HMMA); "
    "the backend has no wgmma path (a warpgroup's MMA on operands in shared memory, through "
    "descriptors).",
    "cuda-lane-fallback": "a thread's lanes go as one vector (`ntc_load_lanes`, "
    "`ntc_store_lanes`) only where all are in bounds and the address aligned, else lane by "
    "lane: the 16- and 32-bit accesses are that fallback, which the benchmark's aligned sizes "
    "never run. Triton needs none: it masks whole vectors, knowing 16 divides the sizes.",
    "cuda-fp16-lanes": "CUDA C++'s 32 x 32 dot tiles (its tile_cap: static shared memory) give "
    "each of 256 threads 4 halves, a 64-bit vector where Triton's are 128-bit; the 16-bit "
    "accesses are the lane-by-lane fallback beside each vector (`cuda-lane-fallback`).",
    "cuda-code": "code Triton does not have: beside every vector access its lane-by-lane "
    "fallback, each tile walked in rounds of the block's threads (`NTC_ROUNDS` loops), and in "
    "reductions the staged tiles (`ntc_reduce`).",
    "staged-tiles": "a tile that a block-wide reduction or more than one loop reads is an array "
    "in shared memory (CUDA C++ and TileLang hold tiles in arrays, not values: softmax's row "
    "and its exponentials, rms_norm's and sum_1d's row, max_pool2d's windows, rotary's "
    "halves), where Triton keeps it in registers and reduces with shuffles and a few bytes of "
    "scratch.",
    "cuda-not-traced": "a few registers more (at most 15 %), not traced: the code differs "
    "throughout (rounds loops, fallback paths, staged tiles).",
    "tilelang-tf32-mma": "TileLang 0.1.15 gives these f32 (TF32) gemms a warp's MMA (`mma.sync` "
    "m16n8k8); wgmma takes TF32 operands K-major only, and B is an N-major [K, N] box here, "
    "which Triton transposes as it copies it (its 32-bit `LDGSTS`) and TileLang does not.",
    "tilelang-mma-registers": "a warp's MMA holds each warp's A and B fragments in registers "
    "beside its part of the accumulator (wgmma reads them from shared memory), and the warp-MMA "
    "gemm is unrolled: 80 to 128 HMMA with their shared-memory operand loads.",
    "tilelang-fragment-store": "the output tile goes from the accumulator fragment straight to "
    "global memory (`T.copy` of a fragment): each thread stores its own fragment's elements "
    "(pairs of f32, 64 bits; single halves, 16 bits), where Triton first converts the layout "
    "through shared memory into 128-bit rows; the element-by-element epilogue is also most of "
    "the extra instructions of the fp16 dots.",
    "tilelang-element-access": "global memory read and written in `T.Parallel` loops, element by "
    "element under a bounds test each (and attention's `T.copy`s, masked per element, as the "
    "key count is known at run time only), which TileLang 0.1.15 does not widen; only a "
    "`T.copy` of a box it proves aligned becomes vectors (cp.async).",
    "tilelang-small": "1 or 2 registers more (under 2 %): TileLang's own schedule and epilogue, "
    "not traced.",
    "ordered-stores": "a barrier between the two stores of the output, its even and its odd "
    "halves (`tl.debug_barrier()`, from ssa.order_memory: a write over a buffer the program wrote "
    "before is fenced, as the two address tensors are not proven disjoint); NineToothed has none.",
    "tilelang-not-traced": "more registers, not traced: TileLang's own lowering and register "
    "allocation of the `T.Parallel` loops, `T.reduce`s and fragments.",
}

REASONS: dict[tuple[str | None, str, str], str] = {}


def _say(key: str, form: str, metrics: Iterable[str], kernels: Iterable[str | None] = (None,)):
    for kernel in kernels:
        for metric in metrics:
            REASONS[kernel, form, metric] = key


FOUR_WARPS = ("vector_add", "fused_elementwise", "softmax", "rms_norm", "rotary_embedding")
_say("four-warps", TRITON, ("registers", "SASS instructions"), (*FOUR_WARPS, "max_pool2d"))
_say("four-warps", TRITON, ("registers", "SASS instructions"), ATTENTION)
_say("addmm-epilogue", TRITON, ("registers",), ("addmm",))
_say("addmm-epilogue", SAME_LAUNCH, ("registers",), ("addmm",))
_say("matmul-hoisted-masks", SAME_LAUNCH, ("registers",), ("matmul",))
_say("matmul-hoisted-masks", TRITON, ("registers",), ("matmul",))
_say("rms-norm-weight-early", SAME_LAUNCH, ("registers",), ("rms_norm",))
_say("elementwise-schedule", SAME_LAUNCH, ("registers",), ("fused_elementwise",))
_say("ordered-stores", SAME_LAUNCH, ("SASS instructions",), ("rotary_embedding",))

WIDTHS = ("global load width", "global store width")
_say("cuda-wmma", "cuda", ("tensor cores",))
_say("cuda-lane-fallback", "cuda", WIDTHS, (*TF32_DOTS, *ATTENTION, *POINTWISE))
_say("cuda-fp16-lanes", "cuda", WIDTHS, FP16_DOTS)
_say("cuda-code", "cuda", ("SASS instructions",), (*ATTENTION, *POINTWISE, "rotary_embedding"))
_say("staged-tiles", "cuda", ("shared memory",), ROWS)
_say("cuda-not-traced", "cuda", ("registers",), ("fused_elementwise", "softmax", "rms_norm"))
_say("cuda-not-traced", "cuda", ("registers",), ("rotary_embedding",))

_say("tilelang-tf32-mma", "tilelang", ("tensor cores",), TF32_DOTS)
_say("tilelang-mma-registers", "tilelang", ("registers", "SASS instructions"), TF32_DOTS)
_say("tilelang-fragment-store", "tilelang", ("global store width",), (*TF32_DOTS, *FP16_DOTS))
_say("tilelang-fragment-store", "tilelang", ("SASS instructions",), FP16_DOTS)
_say("tilelang-small", "tilelang", ("registers",), FP16_DOTS)
_say("tilelang-element-access", "tilelang", WIDTHS, ("addmm", *ATTENTION, *POINTWISE))
_say("tilelang-element-access", "tilelang", ("SASS instructions",), (*ATTENTION, *POINTWISE))
_say("tilelang-element-access", "tilelang", ("SASS instructions",), ("rotary_embedding",))
_say("staged-tiles", "tilelang", ("shared memory",), ROWS)
_say("tilelang-not-traced", "tilelang", ("registers",), (*ATTENTION, *POINTWISE))
_say("tilelang-not-traced", "tilelang", ("registers",), ("rotary_embedding",))


def reason(kernel: str, form: str, metric: str) -> str | None:
    """The key of `TEXTS` that explains it, or None."""
    return REASONS.get((kernel, form, metric)) or REASONS.get((None, form, metric))
