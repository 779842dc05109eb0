"""``SuiteKernel``: one program of the suite with what it takes to run and check it."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import torch

PROGRAMS_DIR = Path(__file__).parent / "programs"

INT_POISON = -12345


@dataclass(frozen=True)
class SuiteKernel:
    """How to call and check one suite program.

    The launch is ``kernel(*args, **call_kwargs)``. ``args = make_args(seed, ragged=...)`` holds
    one value per tensor of the program, in order (a torch tensor, or a Python number for a
    runtime ``Tensor(0)``), less a trailing named constexpr tensor that ``call_kwargs`` passes
    (flash attention's ``is_causal``); ``call_kwargs`` also passes the constexpr symbols that
    become launch parameters (``BLOCK_SIZE`` of softmax and rms_norm). ``arrangement_kwargs`` are
    plain Python values (block sizes, stride, padding) bound into the program's ``arrangement``
    with ``functools.partial`` before ``make``; with the block sizes bound nothing is autotuned.
    ``reference(args)`` returns the expected value of ``args[i]`` for each ``i`` in ``outputs``.
    ``ragged=True`` sizes are neither block multiples nor powers of two; ``ragged=False`` sizes
    are powers of two or block multiples where the kernel allows.
    """

    name: str
    path: Path
    make_args: Callable[..., list]
    reference: Callable[[list], list[torch.Tensor]]
    outputs: tuple[int, ...]
    call_kwargs: Mapping[str, Any] = field(default_factory=dict)
    arrangement_kwargs: Mapping[str, Any] = field(default_factory=dict)
    rtol: float = 1e-5
    atol: float = 1e-5

    def __post_init__(self):
        object.__setattr__(self, "call_kwargs", MappingProxyType(dict(self.call_kwargs)))
        object.__setattr__(
            self, "arrangement_kwargs", MappingProxyType(dict(self.arrangement_kwargs))
        )


def program(name: str) -> Path:
    """The path of the program file ``programs/<name>.py``."""
    return PROGRAMS_DIR / f"{name}.py"


def poisoned(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """An output tensor every element of which fails a comparison until the kernel writes it."""
    fill = float("nan") if dtype.is_floating_point else INT_POISON
    return torch.full(shape, fill, dtype=dtype)


def generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(gen: torch.Generator, *shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(shape, generator=gen).to(dtype)
