"""Suite entries for the reductions: sum_1d, softmax, rms_norm, max_pool2d."""

import torch
import torch.nn.functional as F

from compiler.suite.kernel import SuiteKernel, generator, poisoned, program, randn

_POOL = {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1)}


def _sum_1d_args(seed, *, ragged=True):
    gen, n = generator(seed), 1237 if ragged else 1024
    return [randn(gen, n), poisoned(1)]


def _softmax_args(seed, *, ragged=True):
    gen, shape = generator(seed), (13, 45) if ragged else (16, 64)
    return [randn(gen, *shape) * 4, poisoned(*shape)]


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


def _max_pool2d_args(seed, *, ragged=True):
    gen, shape = generator(seed), (2, 3, 11, 13) if ragged else (1, 4, 15, 15)
    x = randn(gen, *shape)
    return [x, poisoned(*F.max_pool2d(x, **_POOL).shape)]


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
    ),
    SuiteKernel(
        name="softmax",
        path=program("softmax"),
        make_args=_softmax_args,
        reference=lambda args: [torch.softmax(args[0], dim=-1)],
        outputs=(1,),
        call_kwargs={"BLOCK_SIZE": 64},
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
    ),
    SuiteKernel(
        name="max_pool2d",
        path=program("max_pool2d"),
        make_args=_max_pool2d_args,
        reference=lambda args: [F.max_pool2d(args[0], **_POOL)],
        outputs=(1,),
        arrangement_kwargs={**_POOL, "BLOCK_SIZE": 64},
    ),
)
