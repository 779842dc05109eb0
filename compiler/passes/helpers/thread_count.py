"""Threads per program, for targets that spread element loops over a block's threads: the rule
the backends' `ssa.<backend>.optimize_schedule` passes share (each registers a subclass under its
own name).

A value the caller gives (the pass option, else `ctx.options["num_warps"]`) wins; otherwise enough
warps (32 threads each) to give every element of the largest tile a thread, at most the target's
`max_warps` capability: more threads would idle; fewer where the target's array dot needs whole
shares of each dot it takes per warp. A target without `max_warps` runs one thread per
program, and nothing is recorded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from compiler.ir import Kernel, TileType
from compiler.passes.base import Pass, PassContext
from compiler.passes.helpers.array_dot import takes, warps_split
from compiler.passes.helpers.launch_options import chosen_option

WARP = 32


def largest_tile(kernel: Kernel) -> int:
    """The element count of the kernel's largest tile value (1 when it has none)."""
    ops = list(kernel.walk())
    values = [v for op in ops for v in op.results]
    values += [a for op in ops for region in op.regions for a in region.block.args]
    sizes = [
        math.prod(d for d in v.type.shape if isinstance(d, int))
        for v in values
        if isinstance(v.type, TileType)
    ]
    return max(sizes, default=1)


@dataclass(frozen=True)
class WarpsForLargestTile(Pass):
    num_warps: int = 0  # 0: ctx.options["num_warps"], else the rule

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        max_warps = ctx.require_target(self.name).capability("max_warps")
        if max_warps is None:
            return False
        rule = min(max_warps, -(-largest_tile(kernel) // WARP))
        rule = _split_by_warps(kernel, ctx.target.capability("array_dot") or {}, rule)
        chosen = chosen_option("num_warps", self.num_warps or ctx.options.get("num_warps"), rule)
        changed = kernel.attrs.get("num_warps") != chosen
        kernel.attrs["num_warps"] = chosen
        return changed


def _split_by_warps(kernel: Kernel, array_dot: dict, warps: int) -> int:
    """`warps`, halved until the target's array dot can give each warp a share of every dot it
    takes (compiler/passes/helpers/array_dot.py), so that those dots stay on it."""
    dots = [op for op in kernel.walk() if op.name == "linalg.dot" and takes(array_dot, op)]
    while warps > 1 and not all(warps_split(array_dot, op, warps) for op in dots):
        warps //= 2
    return warps
