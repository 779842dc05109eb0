"""A few of the ntops corpus's kernels as programs to compile outside its tests: `make bench`
times them beside the suite's programs, as the programs a user writes.

Each entry calls its kernel module's `premake` (ntops' own way to make a kernel) with fixed options
and block sizes, so nothing is autotuned, and gives the torch arguments of one call: small shapes,
of which only the dtypes, ranks and constexpr sizes reach the compiler. They cover elementwise
math, reductions (softmax, logsumexp, norms), dots (mm, bmm, addmm, conv2d), pooling, rotary
embedding and attention.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, ModuleType

import torch

from compiler.compat.corpus import prepare
from compiler.compat.library import import_library_module

# ntops' mm/bmm/addmm/conv2d `input_precision` for IEEE float32 dots (InputPrecisionVariant.IEEE)
_IEEE = 2
_BLOCK = {"block_size": 64}
_DOT_BLOCKS = {"block_size_m": 16, "block_size_n": 16, "block_size_k": 16}
_POOL = {"kernel_size_h": 3, "kernel_size_w": 3, "stride_h": 2, "stride_w": 2}
_POOL |= {"padding_h": 1, "padding_w": 1, "dilation_h": 1, "dilation_w": 1, "ceil_mode": False}
_CONV = {"stride_h": 1, "stride_w": 1, "padding_h": 1, "padding_w": 1}
_CONV |= {"dilation_h": 1, "dilation_w": 1, **_DOT_BLOCKS, "block_size_m": 32}


@dataclass(frozen=True)
class LibraryKernel:
    name: str  # the program's name in the bench: "ntops.<module>"
    module: str  # its module under ntops.kernels
    make_args: Callable[[], list]  # the arguments of one call
    premake_args: tuple = ()
    premake_kwargs: Mapping = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "premake_kwargs", MappingProxyType(dict(self.premake_kwargs)))

    def program(self, kernels: ModuleType) -> tuple:
        """(arrangement, application, tensors) from `kernels`, ntops' kernel package imported
        under the library that is to compile them."""
        premake = getattr(kernels, self.module).premake
        return premake(*self.premake_args, **self.premake_kwargs)


def load_kernels(corpus: Path | str, library: ModuleType) -> ModuleType:
    """ntops' `ntops.kernels` package from the corpus at `corpus`, imported under `library`."""
    return import_library_module(prepare(corpus), "ntops.kernels", library)


def _randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(0)).to(dtype)


def _empty(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.empty(shape, dtype=dtype)


def _kernel(module: str, make_args, *premake_args, **premake_kwargs) -> LibraryKernel:
    return LibraryKernel(f"ntops.{module}", module, make_args, premake_args, premake_kwargs)


def _rotary_args() -> list:
    sin_table, cos_table = _randn(2, 16, 4, 16), _randn(2, 16, 4, 16)
    return [_randn(2, 16, 4, 32), sin_table, cos_table, _empty(2, 16, 4, 32)]


def _attention_args() -> list:
    q, k, v = (_randn(2, 3, 40, 32, dtype=torch.float16) for _ in range(3))
    mask = _empty(2, 3, 40, 40, dtype=torch.float16)
    return [q, k, v, mask, True, 0.17, _empty(2, 3, 40, 32, dtype=torch.float16), False, 1]


NTOPS_KERNELS: tuple[LibraryKernel, ...] = (
    _kernel("add", lambda: [_randn(37, 45), _randn(37, 45), 1.5, _empty(37, 45)], 2, **_BLOCK),
    _kernel("gelu", lambda: [_randn(37, 45), _empty(37, 45)], 2, "tanh", **_BLOCK),
    _kernel("silu", lambda: [_randn(37, 45), _empty(37, 45)], 2, **_BLOCK),
    _kernel(
        "clamp",
        lambda: [_randn(37, 45), _randn(37, 45), _randn(37, 45), _empty(37, 45)],
        2,
        **_BLOCK,
    ),
    _kernel("softmax", lambda: [_randn(37, 45), _empty(37, 45)], 2, -1, **_BLOCK),
    _kernel("logsumexp", lambda: [_randn(37, 45), _empty(37, 1)], 2, -1, **_BLOCK),
    _kernel(
        "rms_norm",
        lambda: [_randn(37, 45), _randn(37, 45), 1e-6, _empty(37, 45), 45],
        2,
        1,
        **_BLOCK,
    ),
    _kernel(
        "layer_norm",
        lambda: [_randn(37, 45), _randn(37, 45), _randn(37, 45), 1e-5, _empty(37, 45), 45],
        2,
        (45,),
        **_BLOCK,
    ),
    _kernel(
        "mm",
        lambda: [_randn(37, 45), _randn(45, 29), _empty(37, 29), _IEEE],
        input_precision=_IEEE,
        **_DOT_BLOCKS,
    ),
    _kernel(
        "bmm",
        lambda: [_randn(3, 37, 45), _randn(3, 45, 29), _empty(3, 37, 29), _IEEE],
        input_precision=_IEEE,
        **_DOT_BLOCKS,
    ),
    _kernel(
        "addmm",
        lambda: [_randn(37, 29), _randn(37, 45), _randn(45, 29), 1.0, 1.0, _empty(37, 29), _IEEE],
        input_precision=_IEEE,
        **_DOT_BLOCKS,
    ),
    _kernel(
        "conv2d",
        lambda: [_randn(2, 3, 9, 10), _randn(4, 3, 3, 3), _randn(4), _empty(2, 4, 9, 10), _IEEE],
        input_precision=_IEEE,
        **_CONV,
    ),
    _kernel(
        "avg_pool2d",
        lambda: [_randn(2, 3, 17, 19), _empty(2, 3, 9, 10)],
        **_POOL,
        **_BLOCK,
    ),
    _kernel(
        "rotary_position_embedding",
        _rotary_args,
        4,
    ),
    _kernel(
        "scaled_dot_product_attention",
        _attention_args,
        False,
        is_causal=True,
        with_attn_mask=False,
        causal_variant=1,
        block_size_m=16,
        block_size_n=16,
    ),
)
