"""ssa.triton.optimize_schedule: record Triton's launch options `num_warps` and `num_stages`.

A value the caller gives (the pass option, else `ctx.options`; a tuple: the nearest of its values
to the rule, `helpers/launch_options.py`) wins; otherwise a static rule:
`num_warps` is 8 when the largest tile holds at least 16384 elements, else 4; `num_stages` is 2 when
the kernel has an `scf.for` (software pipelining has a loop to overlap), else 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel
from compiler.passes.base import Pass, PassContext
from compiler.passes.helpers.launch_options import chosen_option
from compiler.passes.helpers.thread_count import largest_tile
from compiler.passes.registry import register

LARGE_TILE = 16384


@register
@dataclass(frozen=True)
class OptimizeSchedule(Pass):
    name = "ssa.triton.optimize_schedule"
    category = "backend-specific"
    description = "record num_warps and num_stages: given values, else a rule on tiles and loops"

    num_warps: int = 0  # 0: ctx.options["num_warps"], else the rule
    num_stages: int = 0  # 0: ctx.options["num_stages"], else the rule

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        ops = list(kernel.walk())
        largest = largest_tile(kernel)
        stages = 2 if any(op.name == "scf.for" for op in ops) else 1
        chosen = {
            "num_warps": chosen_option(
                "num_warps", self.num_warps or ctx.options.get("num_warps"), _warps(largest)
            ),
            "num_stages": chosen_option(
                "num_stages", self.num_stages or ctx.options.get("num_stages"), stages
            ),
        }
        before = {key: kernel.attrs.get(key) for key in chosen}
        kernel.attrs.update({key: int(value) for key, value in chosen.items()})
        return before != {key: kernel.attrs[key] for key in chosen}


def _warps(largest_tile: int) -> int:
    return 8 if largest_tile >= LARGE_TILE else 4
