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

    The GPU benchmark (``bench/gpu.py``) reads the optional ``bench_*`` fields and ``cost``.
    ``bench_args(seed, device=...)`` makes realistic GPU-sized arguments directly on ``device``
    (``"meta"`` allocates nothing: shapes only). ``bench_arrangement_kwargs`` are GPU block sizes
    (default ``arrangement_kwargs``); ``bench_array_arrangement_kwargs`` those for targets that
    cap the tiles they hold in arrays of their own memory below them (a target's ``tile_cap``:
    CUDA C++'s 48 KB of static shared memory per block); ``bench_blocks`` picks;
    ``bench_call_kwargs`` replace ``call_kwargs`` at bench sizes (a row-sized ``BLOCK_SIZE``).
    ``cost(args) -> (flops, bytes)``: the work and the compulsory memory traffic (every input read
    once, every output written once) of one launch on ``args``, for the roofline.
    ``torch_eager(args)`` is torch's own computation at the inputs' dtype, timed as the torch
    baseline (default ``reference``, which some entries compute in float for accuracy).
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
    bench_args: Callable[..., list] | None = None
    bench_arrangement_kwargs: Mapping[str, Any] | None = None
    bench_array_arrangement_kwargs: Mapping[str, Any] | None = None
    bench_call_kwargs: Mapping[str, Any] | None = None
    cost: Callable[[list], tuple[float, float]] | None = None
    torch_eager: Callable[[list], list[torch.Tensor]] | None = None

    def __post_init__(self):
        for name in (
            "call_kwargs",
            "arrangement_kwargs",
            "bench_arrangement_kwargs",
            "bench_array_arrangement_kwargs",
            "bench_call_kwargs",
        ):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    def bench_blocks(self, tile_cap: int | None) -> Mapping[str, Any]:
        """The GPU block sizes for a target capping tile edges at `tile_cap` (None: no cap):
        ``bench_arrangement_kwargs``, or the array ones where one of its block sizes (the
        ``BLOCK_SIZE*`` symbols) is past the cap."""
        blocks = self.bench_arrangement_kwargs
        if blocks is None:
            blocks = self.arrangement_kwargs
        arrays = self.bench_array_arrangement_kwargs
        sizes = [v for k, v in blocks.items() if k.startswith("BLOCK_SIZE")]
        if arrays is not None and tile_cap is not None and max(sizes, default=0) > tile_cap:
            return arrays
        return blocks


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


def bench_generator(seed: int, device: str | torch.device) -> torch.Generator | None:
    """A seeded generator on ``device`` for ``bench_args`` (none on "meta": nothing is drawn)."""
    if torch.device(device).type == "meta":
        return None
    return torch.Generator(device=device).manual_seed(seed)


def bench_randn(
    gen: torch.Generator | None,
    *shape: int,
    dtype: torch.dtype = torch.float32,
    device: str | torch.device = "cpu",
) -> torch.Tensor:
    """Standard normal values drawn on ``device`` at ``dtype`` (GPU-sized inputs)."""
    if gen is None:
        return torch.empty(shape, dtype=dtype, device=device)
    return torch.randn(shape, generator=gen, device=device, dtype=dtype)


def bench_poisoned(
    *shape: int, dtype: torch.dtype = torch.float32, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """``poisoned`` on ``device``."""
    fill = float("nan") if dtype.is_floating_point else INT_POISON
    return torch.full(shape, fill, dtype=dtype, device=device)


def nbytes(*tensors: torch.Tensor) -> int:
    """The bytes of the tensors' elements (works on "meta" tensors)."""
    return sum(t.numel() * t.element_size() for t in tensors)
