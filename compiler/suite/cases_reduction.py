"""Suite entries for the reductions: sum_1d, softmax, rms_norm, max_pool2d.

Bench sizes (``bench/gpu.py``): a 2^24-element fp32 sum (the program is one block: it measures one
SM's streaming rate), a (16384, 2048) fp32 softmax, a (16384, 4096) fp16 rms_norm (LLM hidden
size 4096) and ResNet's stem pooling on a (32, 64, 112, 112) fp32 batch; all memory-bound."""

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

_POOL = {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1)}
_SUM = 2**24
_SOFTMAX = (16384, 2048)
_RMS_NORM = (16384, 4096)
_POOL_INPUT = (32, 64, 112, 112)


def _sum_1d_args(seed, *, ragged=True):
    gen, n = generator(seed), 1237 if ragged else 1024
    return [randn(gen, n), poisoned(1)]


def _sum_1d_bench_args(seed, *, device="cpu"):
    gen = bench_generator(seed, device)
    return [bench_randn(gen, _SUM, device=device), bench_poisoned(1, device=device)]


def _sum_1d_cost(args):
    x, output = args
    return x.numel(), nbytes(x, output)


def _softmax_args(seed, *, ragged=True):
    gen, shape = generator(seed), (13, 45) if ragged else (16, 64)
    return [randn(gen, *shape) * 4, poisoned(*shape)]


def _softmax_bench_args(seed, *, device="cpu"):
    gen = bench_generator(seed, device)
    x = bench_randn(gen, *_SOFTMAX, device=device)
    if gen is not None:
        x *= 4
    return [x, bench_poisoned(*_SOFTMAX, device=device)]


def _softmax_cost(args):
    """Per element: max, subtract, exp, add, divide."""
    x, output = args
    return 5 * x.numel(), nbytes(x, output)


def _rms_norm_args(seed, *, ragged=True):
    gen, (rows, cols) = generator(seed), (11, 37) if ragged else (16, 64)
    half = torch.float16
    return [
        randn(gen, rows, cols, dtype=half),
        randn(gen, cols, dtype=half),
        1e-5,
        poisoned(rows, cols, dtype=half),
    ]


def _rms_norm_reference(args):
    x, weight, eps, _ = (arg.float() if isinstance(arg, torch.Tensor) else arg for arg in args)
    return [(x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight).half()]


def _rms_norm_bench_args(seed, *, device="cpu"):
    gen, (rows, cols), half = bench_generator(seed, device), _RMS_NORM, torch.float16
    return [
        bench_randn(gen, rows, cols, dtype=half, device=device),
        bench_randn(gen, cols, dtype=half, device=device),
        1e-5,
        bench_poisoned(rows, cols, dtype=half, device=device),
    ]


def _rms_norm_cost(args):
    """Per element: square, add, scale by the row's rsqrt, scale by the weight."""
    x, weight, _, output = args
    return 4 * x.numel(), nbytes(x, weight, output)


def _rms_norm_torch(args):
    x, weight, eps, _ = args
    return [F.rms_norm(x, (x.shape[-1],), weight, eps)]


def _max_pool2d_args(seed, *, ragged=True):
    gen, shape = generator(seed), (2, 3, 11, 13) if ragged else (1, 4, 15, 15)
    x = randn(gen, *shape)
    return [x, poisoned(*F.max_pool2d(x, **_POOL).shape)]


def _max_pool2d_bench_args(seed, *, device="cpu"):
    x = bench_randn(bench_generator(seed, device), *_POOL_INPUT, device=device)
    out = F.max_pool2d(torch.empty(_POOL_INPUT, device="meta"), **_POOL).shape
    return [x, bench_poisoned(*out, device=device)]


def _max_pool2d_cost(args):
    """A comparison per window element of each output."""
    x, output = args
    window = _POOL["kernel_size"][0] * _POOL["kernel_size"][1]
    return window * output.numel(), nbytes(x, output)


KERNELS = (
    SuiteKernel(
        name="sum_1d",
        path=program("sum_1d"),
        make_args=_sum_1d_args,
        reference=lambda args: [args[0].sum().reshape(1)],
        outputs=(1,),
        arrangement_kwargs={"BLOCK_SIZE": 128},
        rtol=1e-4,
        atol=1e-4,
        bench_args=_sum_1d_bench_args,
        bench_arrangement_kwargs={"BLOCK_SIZE": 1024},
        cost=_sum_1d_cost,
    ),
    SuiteKernel(
        name="softmax",
        path=program("softmax"),
        make_args=_softmax_args,
        reference=lambda args: [torch.softmax(args[0], dim=-1)],
        outputs=(1,),
        call_kwargs={"BLOCK_SIZE": 64},
        bench_args=_softmax_bench_args,
        bench_call_kwargs={"BLOCK_SIZE": _SOFTMAX[1]},
        cost=_softmax_cost,
    ),
    SuiteKernel(
        name="rms_norm",
        path=program("rms_norm"),
        make_args=_rms_norm_args,
        reference=_rms_norm_reference,
        outputs=(3,),
        call_kwargs={"BLOCK_SIZE": 64},
        rtol=1e-2,
        atol=1e-2,
        bench_args=_rms_norm_bench_args,
        bench_call_kwargs={"BLOCK_SIZE": _RMS_NORM[1]},
        cost=_rms_norm_cost,
        torch_eager=_rms_norm_torch,
    ),
    SuiteKernel(
        name="max_pool2d",
        path=program("max_pool2d"),
        make_args=_max_pool2d_args,
        reference=lambda args: [F.max_pool2d(args[0], **_POOL)],
        outputs=(1,),
        arrangement_kwargs={**_POOL, "BLOCK_SIZE": 64},
        bench_args=_max_pool2d_bench_args,
        bench_arrangement_kwargs={**_POOL, "BLOCK_SIZE": 256},
        bench_array_arrangement_kwargs={**_POOL, "BLOCK_SIZE": 64},
        cost=_max_pool2d_cost,
    ),
)
