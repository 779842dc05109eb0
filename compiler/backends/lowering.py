"""`lower_unified_ssa_artifact`: the one path from a frontend kernel to a backend artifact.

Copy the kernel (the caller's stays untouched, unless it gives the kernel away), run the pass
pipeline with the backend's Target in the pass context, emit the source with the shared emitter.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.backends.artifact import Artifact, build_artifact
from compiler.backends.registry import get_target, wide_index_advice
from compiler.errors import CompileError
from compiler.ir import Kernel, print_kernel
from compiler.ir.parser import copy_kernel
from compiler.ir.types import storage_width
from compiler.passes.base import Pass, PassContext
from compiler.passes.hardware_dependent.select_schedule.autotune import Tuner
from compiler.passes.manager import PassManager
from compiler.passes.registry import default_pipeline, parse_pipeline


def lower_unified_ssa_artifact(
    kernel: Kernel,
    backend: str,
    *,
    device: str = "cpu",
    options: dict | None = None,
    pipeline: str | Sequence[Pass] | None = None,
    tuner: Tuner | None = None,
    index_bits: int | None = None,
    given_away: bool = False,
) -> Artifact:
    """`pipeline`: a pipeline string or pass instances; the backend's default pipeline if None.
    `tuner`: lets `ssa.select_schedule` time candidate schedules
    (compiler/passes/hardware_dependent/select_schedule/autotune.py).
    `index_bits`: the width offsets need, when more than the target's own (`Target.widened`).
    `given_away`: the caller will not use `kernel` again, so it is lowered in place, not copied."""
    target = get_target(backend, device)
    if index_bits is not None and index_bits > target.capability("index_bits", 64):
        target = target.widened()
        if target is None:
            raise ValueError(f"backend {backend!r} ({device}) has no {index_bits}-bit index form")
    initial_ssa = print_kernel(kernel)
    # The copy is parse_kernel(initial_ssa) without reading the text.
    work = kernel if given_away else copy_kernel(kernel)
    if pipeline is None:
        pipeline = default_pipeline(backend)
    passes = parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline)
    context = PassContext(target=target, options=dict(options or {}), tuner=tuner)
    # The copy prints as the original does, and the last entry holds the final text.
    trace = PassManager(passes, context).run(work, text=initial_ssa)
    _check_static_shared(work, target)
    lowering = {"options": context.options, "index_bits": target.capability("index_bits", 64)}
    too_wide = _index_constant_past(work, target.capability("index_bits", 64))
    if too_wide is not None:
        if target.widened() is None:
            raise CompileError(
                f"@{kernel.name}: the index constant {too_wide} does not fit the {backend} "
                f"backend's {target.capability('index_bits', 64)}-bit offsets, and it has no "
                f"64-bit form; {wide_index_advice(device)}"
            )
        # No pass reads the index width (the emitter and the launch do), so the kernel lowered
        # here is the wide form's as well: only its spelling changes.
        target = target.widened()
    return build_artifact(
        work,
        target,
        initial_ssa=initial_ssa,
        trace=[entry.to_dict() for entry in trace],
        ssa=trace[-1].ir if trace else initial_ssa,
        lowering=lowering,
    )


def _index_constant_past(kernel: Kernel, bits: int) -> int | None:
    """An index constant of the lowered kernel that `bits`-bit offsets cannot hold, if any: the
    launcher checks the tensors' reach, this the numbers the program itself brings."""
    if bits >= 64:
        return None
    for op in kernel.walk():
        if op.name == "arith.constant" and getattr(op.results[0].type, "dtype", None) == "index":
            value = op.attrs["value"]
            if isinstance(value, int) and not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
                return value
    return None


def _check_static_shared(kernel: Kernel, target) -> None:
    """A target whose tile-scope arrays are static (capability `static_shared_bytes`) refuses a
    kernel whose arrays there pass that size: the native compiler would, with no word of why."""
    limit = target.capability("static_shared_bytes")
    scope = target.memory_scopes.get("tile")
    if not limit:
        return
    allocs = [op.attrs for op in kernel.walk() if op.name == "mem.alloc"]
    arrays = [
        (a["size"] * storage_width(a["dtype"]) // 8, a["dtype"], a["size"])
        for a in allocs
        if a.get("scope") == scope
    ]
    declared = sum(size for size, _, _ in arrays)
    if declared <= limit:
        return
    largest = sorted(arrays, reverse=True)[:3]
    named = ", ".join(f"{dtype}[{n}] ({size} bytes)" for size, dtype, n in largest)
    raise CompileError(
        f"@{kernel.name}: its {scope} arrays take {declared} bytes (the largest: {named}), past "
        f"the {limit} bytes of static {scope} memory a block may declare in the {target.name} "
        f"backend's form for {target.device}; give smaller block sizes, or compile for a "
        "backend whose shared memory is dynamic"
    )
