"""Suite entries for the kernels built on ``ntl.dot``: matmul (fp32, fp16), addmm, bmm, conv2d and
flash attention (non-causal, causal). fp32 tolerances allow for TF32 dots on GPUs."""

import math

import torch
import torch.nn.functional as F

from compiler.suite.kernel import SuiteKernel, generator, poisoned, program, randn

_BLOCKS = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16}
_CONV_BLOCKS = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16}
_CONV = {"stride": (2, 1), "padding": (1, 1)}
_ATTENTION_BLOCKS = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16}


def _matmul_args(dtype):
    def make_args(seed, *, ragged=True):
        gen, (m, k, n) = generator(seed), (37, 45, 29) if ragged else (32, 32, 32)
        return [
            randn(gen, m, k, dtype=dtype),
            randn(gen, k, n, dtype=dtype),
            poisoned(m, n, dtype=dtype),
        ]

    return make_args


def _matmul_reference(args):
    a, b, c = args
    return [(a.float() @ b.float()).to(c.dtype)]


def _addmm_args(seed, *, ragged=True):
    gen, (m, k, n) = generator(seed), (37, 45, 29) if ragged else (32, 32, 32)
    return [randn(gen, m, n), randn(gen, m, k), randn(gen, k, n), 0.5, 1.5, poisoned(m, n)]


def _addmm_reference(args):
    input, mat1, mat2, beta, alpha, _ = args
    return [torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha)]


def _bmm_args(seed, *, ragged=True):
    gen, (b, m, k, n) = generator(seed), (3, 19, 23, 21) if ragged else (2, 32, 32, 16)
    return [randn(gen, b, m, k), randn(gen, b, k, n), poisoned(b, m, n)]


def _conv2d_args(seed, *, ragged=True):
    gen = generator(seed)
    input_shape, weight_shape = (
        ((2, 3, 11, 9), (5, 3, 3, 3)) if ragged else ((1, 4, 14, 15), (16, 4, 2, 2))
    )
    x, w = randn(gen, *input_shape), randn(gen, *weight_shape)
    return [x, w, poisoned(*F.conv2d(x, w, **_CONV).shape)]


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


def _attention(name, is_causal):
    return SuiteKernel(
        name=name,
        path=program("flash_attention"),
        make_args=_attention_args,
        reference=_attention_reference(is_causal),
        outputs=(4,),
        call_kwargs={"is_causal": is_causal},
        arrangement_kwargs=_ATTENTION_BLOCKS,
        rtol=1e-2,
        atol=1e-2,
    )


KERNELS = (
    SuiteKernel(
        name="matmul",
        path=program("matmul"),
        make_args=_matmul_args(torch.float32),
        reference=_matmul_reference,
        outputs=(2,),
        arrangement_kwargs=_BLOCKS,
        rtol=1e-2,
        atol=1e-2,
    ),
    SuiteKernel(
        name="matmul_fp16",
        path=program("matmul"),
        make_args=_matmul_args(torch.float16),
        reference=_matmul_reference,
        outputs=(2,),
        arrangement_kwargs=_BLOCKS,
        rtol=1e-2,
        atol=1e-2,
    ),
    SuiteKernel(
        name="addmm",
        path=program("addmm"),
        make_args=_addmm_args,
        reference=_addmm_reference,
        outputs=(5,),
        arrangement_kwargs=_BLOCKS,
        rtol=1e-2,
        atol=1e-2,
    ),
    SuiteKernel(
        name="bmm",
        path=program("bmm"),
        make_args=_bmm_args,
        reference=lambda args: [torch.bmm(args[0], args[1])],
        outputs=(2,),
        arrangement_kwargs=_BLOCKS,
        rtol=1e-2,
        atol=1e-2,
    ),
    SuiteKernel(
        name="conv2d",
        path=program("conv2d"),
        make_args=_conv2d_args,
        reference=lambda args: [F.conv2d(args[0], args[1], **_CONV)],
        outputs=(2,),
        arrangement_kwargs={**_CONV, **_CONV_BLOCKS},
        rtol=1e-2,
        atol=1e-2,
    ),
    _attention("flash_attention", is_causal=False),
    _attention("flash_attention_causal", is_causal=True),
)
