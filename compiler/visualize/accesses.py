"""Which elements of each tensor one program of a compiled kernel loads and stores.

The kernel is compiled by this compiler (for a target with tile values, so the final SSA is at
tile level), its arguments are bound as for a launch, and the one program runs in the IR's
reference interpreter (`compiler.ir.interpreter`) on numpy copies of the tensors. Every
`mem.load`/`mem.store` reports the flat offsets its mask lets through; those are mapped back to
element coordinates with the tensor's own strides. So the picture shows what the kernel does, not
what the arrangement is assumed to mean.

Loop iterations are those of the outermost `scf.for` (several outermost loops one after another
share the index: iteration `i` of each). An access outside every loop belongs to all iterations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from compiler.errors import CompileError
from compiler.ir import parse_kernel
from compiler.ir.interpreter import NUMPY_DTYPES, Access, run_program
from compiler.runtime.bindings import TORCH_DTYPES, grid_size

KINDS = ("load", "store")


class VisualizeError(CompileError):
    """A request the picture cannot be made for; the message names the valid choice."""


@dataclass(frozen=True)
class TensorAccesses:
    """Boolean masks of the tensor's shape, per kind ("load", "store")."""

    name: str
    shape: tuple[int, ...]
    now: dict[str, np.ndarray]  # touched at the chosen loop iteration (or outside every loop)
    program: dict[str, np.ndarray]  # touched by this program at any iteration
    outside: dict[str, np.ndarray]  # touched outside every loop

    def coords(self, kind: str, *, at_iteration: bool = True) -> set[tuple[int, ...]]:
        """The element coordinates touched: at the chosen iteration, or at any."""
        mask = (self.now if at_iteration else self.program)[kind]
        return {tuple(int(i) for i in index) for index in np.argwhere(mask)}

    def count(self, kind: str, *, at_iteration: bool = True) -> int:
        return int((self.now if at_iteration else self.program)[kind].sum())

    def describe(self, kind: str, loop: int | None) -> str:
        """E.g. "256 loaded at iteration 1 (512 in all iterations)"; "" when never touched."""
        verb = "loaded" if kind == "load" else "stored"
        now, total = self.count(kind), self.count(kind, at_iteration=False)
        outside = int(self.outside[kind].sum())
        if not total:
            return ""
        if loop is None:
            return f"{total} {verb}"
        if outside == now:
            text = f"{now} {verb} outside the loop"
        else:
            text = f"{now} {verb} at iteration {loop}" + (" or outside the loop" if outside else "")
        return text + (f" ({total} in all iterations)" if total != now else "")


@dataclass(frozen=True)
class ProgramAccesses:
    kernel: str
    pid: int
    grid: int
    loop: int | None  # None: every iteration counts as chosen
    trip_count: int  # iterations of the outermost loop for this program (0: no loop)
    tensors: tuple[TensorAccesses, ...]

    def tensor(self, name: str) -> TensorAccesses:
        for tensor in self.tensors:
            if tensor.name == name:
                return tensor
        raise KeyError(f"no tensor {name!r}; tensors: {', '.join(t.name for t in self.tensors)}")


def program_accesses(
    handle, args: Sequence, kwargs: Mapping, *, pid: int, loop: int | None = None
) -> ProgramAccesses:
    """Compile `handle` for `args`/`kwargs` (as a launch would get them) and run program `pid`.

    `loop`: the outermost loop iteration to single out (None: all of them)."""
    artifact = handle.compile(*args, **kwargs)
    bindings = handle.bindings(*args, **kwargs)
    grid = grid_size(artifact, bindings)
    if not 0 <= pid < grid:
        valid = f"0..{grid - 1}" if grid else "none: the grid is empty for these shapes"
        raise VisualizeError(
            f"--pid {pid} is out of range: {artifact.kernel_name} runs {grid} programs for these "
            f"shapes (valid program ids: {valid})"
        )
    kernel = parse_kernel(artifact.ssa)
    values, layouts = {}, {}
    for value in kernel.args:
        bound = bindings[value.name]
        if isinstance(bound, torch.Tensor):
            values[value.name], layouts[value.name] = _flat_copy(bound)
        else:
            values[value.name] = bound
    seen: list[Access] = []
    with np.errstate(all="ignore"):
        run = run_program(kernel, values, pid, dict(artifact.schedule), seen.append)
    trip_count = max(run.outer_loop_trips, default=0)
    if loop is not None and not 0 <= loop < trip_count:
        valid = f"0..{trip_count - 1}" if trip_count else "none: omit --loop"
        what = f"runs {trip_count} iterations" if trip_count else "has no loop"
        raise VisualizeError(
            f"--loop {loop} is out of range: program {pid} of {artifact.kernel_name} {what} "
            f"(valid loop iterations: {valid})"
        )
    tensors = []
    for tensor in handle.tensors:
        if tensor.name not in layouts:
            continue  # a number, or a tensor the kernel never takes
        shape, inverse = layouts[tensor.name]
        now, anywhere, outside = ({kind: np.zeros(shape, bool) for kind in KINDS} for _ in "abc")
        for access in seen:
            if access.buffer != tensor.name or not access.offsets.size:
                continue
            coords = np.unravel_index(_elements(inverse, access, tensor.name), shape)
            anywhere[access.kind][coords] = True
            if not access.loops:
                outside[access.kind][coords] = True
            if loop is None or not access.loops or access.loops[0] == loop:
                now[access.kind][coords] = True
        tensors.append(TensorAccesses(tensor.name, shape, now, anywhere, outside))
    return ProgramAccesses(artifact.kernel_name, pid, grid, loop, trip_count, tuple(tensors))


def _elements(inverse: np.ndarray, access: Access, name: str) -> np.ndarray:
    offsets = access.offsets
    inside = (offsets >= 0) & (offsets < inverse.size)
    elements = np.where(inside, inverse[np.where(inside, offsets, 0)], -1)
    if (elements < 0).any():
        bad = int(offsets[elements < 0][0])
        raise VisualizeError(f"the kernel's {access.kind} reaches offset {bad}, outside {name}")
    return elements


def _flat_copy(tensor: torch.Tensor) -> tuple[np.ndarray, tuple[tuple[int, ...], np.ndarray]]:
    """The tensor's memory as the kernel addresses it (a flat numpy array over the span of its
    strides), and an inverse map: flat offset -> row-major element index."""
    shape = tuple(tensor.shape)
    dtype = NUMPY_DTYPES[TORCH_DTYPES[tensor.dtype]]
    indices = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), int)
    strides = np.array(tensor.stride(), np.int64).reshape(-1, 1)
    offsets = (indices * strides).sum(axis=0) if shape else np.zeros(1, np.int64)
    span = int(offsets.max()) + 1 if offsets.size else 0
    flat = np.zeros(span, dtype)
    flat[offsets] = tensor.detach().cpu().to(_torch_float(tensor.dtype)).reshape(-1).numpy()
    inverse = np.full(span, -1, np.int64)
    inverse[offsets] = np.arange(offsets.size)
    return flat, (shape, inverse)


def _torch_float(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype == torch.bfloat16 else dtype
