"""Suite entries for the elementwise kernels: vector_add, fused_elementwise, rotary_embedding.

Bench sizes (``bench/gpu.py``): 2^26-element fp32 vectors (768 MiB moved per launch) and a
(4, 4096, 32, 128) fp32 rotary input (LLM-like: 32 heads of 128), all memory-bound."""

import torch

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

_VECTOR = 2**26
_POINTWISE_BLOCKS = {"BLOCK_SIZE": 1024}


def _vector_add_args(seed, *, ragged=True):
    gen, n = generator(seed), 1000 if ragged else 1024
    return [randn(gen, n), randn(gen, n), poisoned(n)]


def _fused_elementwise_args(seed, *, ragged=True):
    gen, n = generator(seed), 777 if ragged else 1024
    return [randn(gen, n), randn(gen, n), poisoned(n)]


def _fused_elementwise_reference(args):
    x, y, _ = args
    return [torch.where(x > 0, torch.exp(x) * torch.sqrt(torch.abs(y)), y)]


def _vector_bench_args(seed, *, device="cpu"):
    gen = bench_generator(seed, device)
    x, y = (bench_randn(gen, _VECTOR, device=device) for _ in range(2))
    return [x, y, bench_poisoned(_VECTOR, device=device)]


def _elementwise_cost(flops_per_element):
    """``flops_per_element`` per output element; two inputs read, the output written."""

    def cost(args):
        x, y, output = args
        return flops_per_element * output.numel(), nbytes(x, y, output)

    return cost


def _rotary_args(seed, *, ragged=True):
    gen = generator(seed)
    batch, seq, heads, head_dim = (2, 5, 3, 20) if ragged else (2, 4, 4, 32)
    angles = torch.arange(seq)[:, None] * 10000.0 ** (-torch.arange(head_dim // 2) / head_dim)
    shape = (batch, seq, heads, head_dim)
    return [randn(gen, *shape), torch.sin(angles), torch.cos(angles), poisoned(*shape)]


def _rotary_bench_args(seed, *, device="cpu"):
    gen = bench_generator(seed, device)
    batch, seq, heads, head_dim = 4, 4096, 32, 128
    positions = torch.arange(seq, device=device)[:, None]
    angles = positions * 10000.0 ** (-torch.arange(head_dim // 2, device=device) / head_dim)
    shape = (batch, seq, heads, head_dim)
    x = bench_randn(gen, *shape, device=device)
    return [x, torch.sin(angles), torch.cos(angles), bench_poisoned(*shape, device=device)]


def _rotary_cost(args):
    """Per (even, odd) pair four multiplies and two adds: 3 flops per element."""
    x, sin, cos, output = args
    return 3 * output.numel(), nbytes(x, sin, cos, output)


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
        bench_args=_vector_bench_args,
        bench_arrangement_kwargs=_POINTWISE_BLOCKS,
        cost=_elementwise_cost(1),
    ),
    SuiteKernel(
        name="fused_elementwise",
        path=program("fused_elementwise"),
        make_args=_fused_elementwise_args,
        reference=_fused_elementwise_reference,
        outputs=(2,),
        arrangement_kwargs={"BLOCK_SIZE": 128},
        bench_args=_vector_bench_args,
        bench_arrangement_kwargs=_POINTWISE_BLOCKS,
        cost=_elementwise_cost(4),  # exp, |y|, sqrt, multiply (the compare and select not counted)
    ),
    SuiteKernel(
        name="rotary_embedding",
        path=program("rotary_embedding"),
        make_args=_rotary_args,
        reference=_rotary_reference,
        outputs=(3,),
        bench_args=_rotary_bench_args,
        cost=_rotary_cost,
    ),
)
