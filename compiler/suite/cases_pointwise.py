"""Suite entries for the elementwise kernels: vector_add, fused_elementwise, rotary_embedding."""

import torch

from compiler.suite.kernel import SuiteKernel, generator, poisoned, program, randn


def _vector_add_args(seed, *, ragged=True):
    gen, n = generator(seed), 1000 if ragged else 1024
    return [randn(gen, n), randn(gen, n), poisoned(n)]


def _fused_elementwise_args(seed, *, ragged=True):
    gen, n = generator(seed), 777 if ragged else 1024
    return [randn(gen, n), randn(gen, n), poisoned(n)]


def _fused_elementwise_reference(args):
    x, y, _ = args
    return [torch.where(x > 0, torch.exp(x) * torch.sqrt(torch.abs(y)), y)]


def _rotary_args(seed, *, ragged=True):
    gen = generator(seed)
    batch, seq, heads, head_dim = (2, 5, 3, 20) if ragged else (2, 4, 4, 32)
    angles = torch.arange(seq)[:, None] * 10000.0 ** (-torch.arange(head_dim // 2) / head_dim)
    shape = (batch, seq, heads, head_dim)
    return [randn(gen, *shape), torch.sin(angles), torch.cos(angles), poisoned(*shape)]


def _rotary_reference(args):
    x, sin, cos, _ = args
    sin, cos = sin[None, :, None, :], cos[None, :, None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return [rotated.flatten(-2)]


KERNELS = (
    SuiteKernel(
        name="vector_add",
        path=program("vector_add"),
        make_args=_vector_add_args,
        reference=lambda args: [args[0] + args[1]],
        outputs=(2,),
        arrangement_kwargs={"BLOCK_SIZE": 64},
    ),
    SuiteKernel(
        name="fused_elementwise",
        path=program("fused_elementwise"),
        make_args=_fused_elementwise_args,
        reference=_fused_elementwise_reference,
        outputs=(2,),
        arrangement_kwargs={"BLOCK_SIZE": 128},
    ),
    SuiteKernel(
        name="rotary_embedding",
        path=program("rotary_embedding"),
        make_args=_rotary_args,
        reference=_rotary_reference,
        outputs=(3,),
    ),
)
