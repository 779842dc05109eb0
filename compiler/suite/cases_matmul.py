"""Suite entries for the kernels built on ``ntl.dot``: matmul and bmm (fp32, fp16), addmm, conv2d
and flash attention (non-causal, causal). fp32 tolerances allow for TF32 dots on GPUs.

Bench sizes (``bench/gpu.py``): 4096^3 matmul (fp32 and fp16) and addmm, a (16, 1024, 1024, 1024)
bmm (fp32 and fp16), a ResNet-like 3x3 conv2d (32 x 128 x 56 x 56 input, 128 filters, the suite's
stride (2, 1)) and (4, 32, 2048, 64) fp16 attention; all compute-bound. The references compute in
float (fp32 without TF32 on GPUs); ``torch_eager`` gives the fp16 entries torch's fp16 kernels
instead."""

import math

import torch
import torch.nn.functional as F

from compiler.suite.kernel import (
    SuiteKernel,
    bench_generator,
    bench_poisoned,
    bench_randn,
    generator,
    nbytes,
    poisoned,
    program,
    randn,
)

_BLOCKS = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16}
_CONV_BLOCKS = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16}
_CONV = {"stride": (2, 1), "padding": (1, 1)}
_ATTENTION_BLOCKS = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16}

# GPU block sizes: Triton (and NineToothed) tiles, at most 32 KiB of operands per pipeline stage, so
# that NineToothed's default num_stages (max shared memory // 32 KiB: 7 on an H200) fits; 32-wide
# tiles for the targets whose tiles live in shared-memory arrays (48 KB of static shared memory per
# block; ptxas accepts every entry at these sizes for sm_90).
_BENCH_BLOCKS = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32}
_BENCH_BLOCKS_FP16 = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64}
_ARRAY_BLOCKS = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32}
_BENCH_ATTENTION_BLOCKS = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64}
_ARRAY_ATTENTION_BLOCKS = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32}
_MATMUL = (4096, 4096, 4096)
_BMM = (16, 1024, 1024, 1024)
_CONV_INPUT, _CONV_WEIGHT = (32, 128, 56, 56), (128, 128, 3, 3)
_ATTENTION = (4, 32, 2048, 64)


def _matmul_args(dtype):
    def make_args(seed, *, ragged=True):
        gen, (m, k, n) = generator(seed), (37, 45, 29) if ragged else (32, 32, 32)
        return [
            randn(gen, m, k, dtype=dtype),
            randn(gen, k, n, dtype=dtype),
            poisoned(m, n, dtype=dtype),
        ]

    return make_args


def _matmul_bench_args(dtype):
    def bench_args(seed, *, device="cpu"):
        gen, (m, k, n) = bench_generator(seed, device), _MATMUL
        return [
            bench_randn(gen, m, k, dtype=dtype, device=device),
            bench_randn(gen, k, n, dtype=dtype, device=device),
            bench_poisoned(m, n, dtype=dtype, device=device),
        ]

    return bench_args


def _matmul_cost(args):
    a, b, c = args
    (m, k), n = a.shape, b.shape[1]
    return 2 * m * n * k, nbytes(a, b, c)


def _matmul_reference(args):
    a, b, c = args
    return [(a.float() @ b.float()).to(c.dtype)]


def _addmm_args(seed, *, ragged=True):
    gen, (m, k, n) = generator(seed), (37, 45, 29) if ragged else (32, 32, 32)
    return [randn(gen, m, n), randn(gen, m, k), randn(gen, k, n), 0.5, 1.5, poisoned(m, n)]


def _addmm_reference(args):
    input, mat1, mat2, beta, alpha, _ = args
    return [torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha)]


def _addmm_bench_args(seed, *, device="cpu"):
    gen, (m, k, n) = bench_generator(seed, device), _MATMUL
    input, mat1, mat2 = (bench_randn(gen, *s, device=device) for s in ((m, n), (m, k), (k, n)))
    return [input, mat1, mat2, 0.5, 1.5, bench_poisoned(m, n, device=device)]


def _addmm_cost(args):
    """The matmul, then ``beta * input + alpha * product``: three flops per output element."""
    input, mat1, mat2, _, _, output = args
    (m, k), n = mat1.shape, mat2.shape[1]
    return 2 * m * n * k + 3 * m * n, nbytes(input, mat1, mat2, output)


def _bmm_args(dtype):
    def make_args(seed, *, ragged=True):
        gen, (b, m, k, n) = generator(seed), (3, 19, 23, 21) if ragged else (2, 32, 32, 16)
        return [
            randn(gen, b, m, k, dtype=dtype),
            randn(gen, b, k, n, dtype=dtype),
            poisoned(b, m, n, dtype=dtype),
        ]

    return make_args


def _bmm_bench_args(dtype):
    def bench_args(seed, *, device="cpu"):
        gen, (b, m, k, n) = bench_generator(seed, device), _BMM
        return [
            bench_randn(gen, b, m, k, dtype=dtype, device=device),
            bench_randn(gen, b, k, n, dtype=dtype, device=device),
            bench_poisoned(b, m, n, dtype=dtype, device=device),
        ]

    return bench_args


def _bmm_cost(args):
    a, b, c = args
    (batch, m, k), n = a.shape, b.shape[2]
    return 2 * batch * m * n * k, nbytes(a, b, c)


def _conv2d_args(seed, *, ragged=True):
    gen = generator(seed)
    input_shape, weight_shape = (
        ((2, 3, 11, 9), (5, 3, 3, 3)) if ragged else ((1, 4, 14, 15), (16, 4, 2, 2))
    )
    x, w = randn(gen, *input_shape), randn(gen, *weight_shape)
    return [x, w, poisoned(*F.conv2d(x, w, **_CONV).shape)]


def _conv2d_bench_args(seed, *, device="cpu"):
    gen = bench_generator(seed, device)
    x = bench_randn(gen, *_CONV_INPUT, device=device)
    w = bench_randn(gen, *_CONV_WEIGHT, device=device)
    meta = (torch.empty(s, device="meta") for s in (_CONV_INPUT, _CONV_WEIGHT))
    return [x, w, bench_poisoned(*F.conv2d(*meta, **_CONV).shape, device=device)]


def _conv2d_cost(args):
    """Two flops per multiply-add: each output element sums C x R x S products."""
    x, w, out = args
    return 2 * out.numel() * w[0].numel(), nbytes(x, w, out)


def _attention_args(seed, *, ragged=True):
    gen, seq = generator(seed), 43 if ragged else 32
    shape, half = (1, 2, seq, 16), torch.float16
    q, k, v = (randn(gen, *shape, dtype=half) for _ in range(3))
    return [q, k, v, 1 / math.sqrt(shape[-1]), poisoned(*shape, dtype=half)]


def _attention_reference(is_causal):
    def reference(args):
        q, k, v, scale, _ = args
        out = F.scaled_dot_product_attention(
            q.float(), k.float(), v.float(), is_causal=is_causal, scale=scale
        )
        return [out.half()]

    return reference


def _attention_bench_args(seed, *, device="cpu"):
    gen, half = bench_generator(seed, device), torch.float16
    q, k, v = (bench_randn(gen, *_ATTENTION, dtype=half, device=device) for _ in range(3))
    return [
        q,
        k,
        v,
        1 / math.sqrt(_ATTENTION[-1]),
        bench_poisoned(*_ATTENTION, dtype=half, device=device),
    ]


def _attention_cost(is_causal):
    """``q @ k^T`` and ``p @ v``, 2 * head_dim flops each per (query, key) pair; a causal mask
    keeps seq * (seq + 1) / 2 pairs (the softmax's few flops per pair are not counted)."""

    def cost(args):
        q, k, v, _, o = args
        batch, heads, seq, head_dim = q.shape
        pairs = seq * (seq + 1) // 2 if is_causal else seq * seq
        return 4 * batch * heads * pairs * head_dim, nbytes(q, k, v, o)

    return cost


def _attention_torch(is_causal):
    def torch_eager(args):
        q, k, v, scale, _ = args
        return [F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale)]

    return torch_eager


def _dot_kernel(name, program_name, make_args, reference, output, **fields):
    """A dot-based entry: its output index, the matmul blocks, and tolerances for TF32 dots."""
    fields.setdefault("arrangement_kwargs", _BLOCKS)
    return SuiteKernel(
        name=name,
        path=program(program_name),
        make_args=make_args,
        reference=reference,
        outputs=(output,),
        rtol=1e-2,
        atol=1e-2,
        **fields,
    )


def _fp32_and_fp16(name, make_args, bench_args, cost):
    """The fp32 entry `name` and its fp16 twin `<name>_fp16` (larger K blocks on a GPU, torch's
    own fp16 kernel as the eager baseline); both compare with the product in float."""
    precisions = (
        ("", torch.float32, _BENCH_BLOCKS, {}),
        ("_fp16", torch.float16, _BENCH_BLOCKS_FP16, {"torch_eager": _product}),
    )
    return tuple(
        _dot_kernel(
            name + suffix,
            name,
            make_args(dtype),
            _matmul_reference,
            2,
            bench_args=bench_args(dtype),
            bench_arrangement_kwargs=blocks,
            bench_array_arrangement_kwargs=_ARRAY_BLOCKS,
            cost=cost,
            **extra,
        )
        for suffix, dtype, blocks, extra in precisions
    )


def _product(args):
    return [args[0] @ args[1]]


def _attention(name, is_causal):
    return _dot_kernel(
        name,
        "flash_attention",
        _attention_args,
        _attention_reference(is_causal),
        4,
        call_kwargs={"is_causal": is_causal},
        arrangement_kwargs=_ATTENTION_BLOCKS,
        bench_args=_attention_bench_args,
        bench_arrangement_kwargs=_BENCH_ATTENTION_BLOCKS,
        bench_array_arrangement_kwargs=_ARRAY_ATTENTION_BLOCKS,
        cost=_attention_cost(is_causal),
        torch_eager=_attention_torch(is_causal),
    )


KERNELS = (
    *_fp32_and_fp16("matmul", _matmul_args, _matmul_bench_args, _matmul_cost),
    _dot_kernel(
        "addmm",
        "addmm",
        _addmm_args,
        _addmm_reference,
        5,
        bench_args=_addmm_bench_args,
        bench_arrangement_kwargs=_BENCH_BLOCKS,
        bench_array_arrangement_kwargs=_ARRAY_BLOCKS,
        cost=_addmm_cost,
    ),
    *_fp32_and_fp16("bmm", _bmm_args, _bmm_bench_args, _bmm_cost),
    _dot_kernel(
        "conv2d",
        "conv2d",
        _conv2d_args,
        lambda args: [F.conv2d(args[0], args[1], **_CONV)],
        2,
        arrangement_kwargs={**_CONV, **_CONV_BLOCKS},
        bench_args=_conv2d_bench_args,
        bench_arrangement_kwargs={**_CONV, **_BENCH_BLOCKS},
        bench_array_arrangement_kwargs={**_CONV, **_ARRAY_BLOCKS},
        cost=_conv2d_cost,
    ),
    _attention("flash_attention", is_causal=False),
    _attention("flash_attention_causal", is_causal=True),
)
