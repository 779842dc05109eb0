"""Which `linalg.dot`s a target's block-wide array dot takes (capability `array_dot`, for targets
without tile values: `ssa.lower_tiles_to_loops` makes each such dot one `mem.dot`).

The capability: `{"dtypes": [...], "multiple": m, "warp_tile": [r, c]}`. A dot is taken when both
operands have one of `dtypes` ("tf32": f32 operands of a dot whose `precision` permits TF32
products), the result is f32 and every dim is a multiple of `m`; with
`warp_tile`, only where the program's warps split the result into whole r x c blocks each (the
thread-count rule picks no more warps than that allows).
"""

from __future__ import annotations

from collections.abc import Mapping

from compiler.ir import Operation


def operand_kind(dot: Operation) -> str:
    """The element type `dot` multiplies in: its operands', or "tf32" where it permits that."""
    return "tf32" if dot.attrs.get("precision") == "tf32" else dot.operands[0].type.dtype


def takes(capability: Mapping, dot: Operation) -> bool:
    """Whether the array dot takes `dot` by its types (the warps aside)."""
    left, right = (v.type for v in dot.operands)
    dims = (*left.shape, right.shape[1])
    multiple = capability.get("multiple", 1)
    return (
        left.dtype == right.dtype
        and operand_kind(dot) in capability.get("dtypes", ())
        and dot.results[0].type.dtype == "f32"
        and all(isinstance(d, int) and d % multiple == 0 for d in dims)
    )


def warps_split(capability: Mapping, dot: Operation, warps: int) -> bool:
    """Whether `warps` warps split `dot`'s result into whole `warp_tile` blocks each (always,
    without a `warp_tile`): some split into row and column groups fits evenly."""
    if "warp_tile" not in capability:
        return True
    (rows, columns), (r, c) = dot.results[0].type.shape, capability["warp_tile"]
    splits = [(w, warps // w) for w in range(1, warps + 1) if warps % w == 0]
    return any(rows % (r * down) == 0 and columns % (c * across) == 0 for down, across in splits)
