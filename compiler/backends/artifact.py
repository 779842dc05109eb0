"""What lowering hands the launcher: emitted source, the IR before and after, the pass trace."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from compiler.backends.emitter import emit, ssa_sha256
from compiler.backends.target import Target
from compiler.ir import BufferType, Kernel, print_kernel


@dataclass(frozen=True)
class Artifact:
    backend: str
    device: str  # "cpu" or "cuda": the target the source was lowered for
    kernel_name: str
    source: str
    ssa: str  # the final IR text, the one `source` was emitted from
    trace: list[dict]  # TraceEntry.to_dict() per pass
    initial_ssa: str  # the IR text before the pipeline
    args: list[tuple[str, str]]  # (name, kind): kind is "buffer", "index" or a scalar dtype
    arg_dtypes: dict[str, str]  # name -> element dtype ("index" for index arguments)
    grid: str  # integer expression over argument and meta symbol names: the number of programs
    schedule: dict[str, int]  # meta symbol -> value
    num_warps: int | None
    num_stages: int | None
    ssa_hash: str
    # name -> the caller's element type, for buffers the kernel takes as another type of the same
    # width (ssa.legalize_argument_dtypes): the launch passes such a tensor viewed as `arg_dtypes`.
    buffer_views: dict[str, str] = field(default_factory=dict)
    # Buffers the kernel never reads or writes (a branch a constexpr removed): any tensor will do,
    # on any device, even a meta tensor.
    unused_buffers: tuple[str, ...] = ()
    # Sizes kept as compile-time parameters (`ntc compile` without -D): tile dims name them, so
    # each launch needs a power of two there.
    constexpr_params: tuple[str, ...] = ()
    # The width the kernel computes element offsets in (the target's `index_bits`): the launch
    # refuses tensors whose offsets would not fit.
    index_bits: int = 64
    # (tensor, expression) for each tensor the kernel writes: its number of outermost tiles, one
    # per program (compiler/runtime/coverage.py checks each launch has as many programs).
    written_tiles: tuple[tuple[str, str], ...] = ()
    # (tensor, expression) for each dimension its arrangement squeezes whose size the launch
    # decides: it must be 1 (compiler/runtime/unit_dims.py checks each launch).
    unit_dims: tuple[tuple[str, str], ...] = ()
    # Meta symbols the caller gave values for: a launch may change the others' values.
    schedule_given: tuple[str, ...] = ()
    # What the pass pipeline was given besides the IR: the caller's options and the index width of
    # the target record it ran with, so that a clean process can replay it (audits/behaviour).
    lowering: dict = field(default_factory=dict)

    def trace_json(self) -> str:
        return json.dumps(self.trace, indent=2)


def build_artifact(
    kernel: Kernel,
    target: Target,
    *,
    initial_ssa: str | None = None,
    trace: list[dict] = (),
    ssa: str | None = None,
    lowering: dict | None = None,
) -> Artifact:
    """Emit `kernel` (already lowered for `target`) and gather what the launcher needs. `ssa`:
    the kernel's printed IR, when the caller has it already."""
    if "grid" not in kernel.attrs:
        raise ValueError(
            f"@{kernel.name} has no grid attribute; the frontend records the number of programs "
            'as attributes {grid = "<expression over argument names>"}'
        )
    if ssa is None:
        ssa = print_kernel(kernel)
    return Artifact(
        backend=target.name,
        device=target.device,
        kernel_name=kernel.name,
        source=emit(kernel, target, ssa=ssa),
        ssa=ssa,
        trace=list(trace),
        initial_ssa=ssa if initial_ssa is None else initial_ssa,
        args=[(v.name, _kind(v.type)) for v in kernel.args],
        arg_dtypes={v.name: v.type.dtype for v in kernel.args},
        grid=str(kernel.attrs["grid"]),
        schedule=dict(kernel.attrs.get("schedule") or {}),
        num_warps=kernel.attrs.get("num_warps"),
        num_stages=kernel.attrs.get("num_stages"),
        ssa_hash=ssa_sha256(ssa),
        buffer_views=dict(kernel.attrs.get("buffer_views") or []),
        unused_buffers=_unused_buffers(kernel),
        constexpr_params=tuple(kernel.attrs.get("constexpr_params") or ()),
        index_bits=target.capability("index_bits", 64),
        written_tiles=_written_tiles(kernel),
        unit_dims=tuple((n, e) for n, e in kernel.attrs.get("unit_dims") or ()),
        schedule_given=tuple(kernel.attrs.get("schedule_given") or ()),
        lowering=dict(lowering or {}),
    )


def _written_tiles(kernel: Kernel) -> tuple[tuple[str, str], ...]:
    """The frontend's outer tile counts (`outer_tiles`) of the buffers ssa.analyze_effects found
    written (`writes`)."""
    written = set(kernel.attrs.get("writes") or ())
    return tuple((n, e) for n, e in kernel.attrs.get("outer_tiles") or () if n in written)


def _unused_buffers(kernel: Kernel) -> tuple[str, ...]:
    used = {v for op in kernel.walk() for v in op.operands}
    return tuple(v.name for v in kernel.args if isinstance(v.type, BufferType) and v not in used)


def _kind(type_: object) -> str:
    return "buffer" if isinstance(type_, BufferType) else type_.dtype
