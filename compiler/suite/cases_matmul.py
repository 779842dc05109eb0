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


def _attention(name, is_causal):
    return _dot_kernel(
        name,
        "flash_attention",
        _attention_args,
        _attention_reference(is_causal),
        4,
        call_kwargs={"is_causal": is_causal},
        arrangement_kwargs=_ATTENTION_BLOCKS,
    )


KERNELS = (
    _dot_kernel("matmul", "matmul", _matmul_args(torch.float32), _matmul_reference, 2),
    _dot_kernel("matmul_fp16", "matmul", _matmul_args(torch.float16), _matmul_reference, 2),
    _dot_kernel("addmm", "addmm", _addmm_args, _addmm_reference, 5),
    _dot_kernel("bmm", "bmm", _bmm_args, lambda args: [torch.bmm(args[0], args[1])], 2),
    _dot_kernel(
        "conv2d",
        "conv2d",
        _conv2d_args,
        lambda args: [F.conv2d(args[0], args[1], **_CONV)],
        2,
        arrangement_kwargs={**_CONV, **_CONV_BLOCKS},
    ),
    _attention("flash_attention", is_causal=False),
    _attention("flash_attention_causal", is_causal=True),
)
