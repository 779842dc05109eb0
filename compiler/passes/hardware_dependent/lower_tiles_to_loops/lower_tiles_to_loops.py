"""ssa.lower_tiles_to_loops: for a target without tile values (capability `value_semantics` false),
every tile becomes scalar code in loops over its elements.

A tile is either held in a 1-D array (`mem.alloc`, element (i, j) of [M, N] at i*N + j, which
records the tile's `shape` for targets that lay arrays out so) or
computed per element where it is used (see `tile_elements.py`). Held in arrays: loads (so they run
in program order, before later stores), reductions and dots (each element is a loop), values
carried by `scf.for` and results of `scf.if` (targets like TIR have no re-assignable variables, so
carried scalars get a one-element array too). Everything else is recomputed inside the loop of the
value that uses it, so a chain of elementwise ops becomes one loop with scalar temporaries; but a
tile whose element costs a math function and is read more than once is held, each element
computed once (`read_again.py`: a row's scale spread across its row, a numerator both summed and
divided), if it has at most the target's `held_elements` (no bound by default).

A sum of a narrow float (f16, bf16) is taken in f32 and rounded once (`narrow_sums.py`: added one
after another, each addition would round). A reduction along more than one element whose dtype the
target's `array_reduce` capability (`{"dtypes": [...], "max_elements": n}`) names becomes one
block-wide `mem.reduce` of its source's array, viewed [outer, length, inner], where the source is
held in an array or has at most n elements to fill one with.
A dot the target's `array_dot` capability takes (a block-wide routine, such as tensor cores:
`array_dot.py`) becomes one `mem.dot` over its operands' arrays instead of a loop per element.
Where a loop only ever adds such a dot to a tile it carries (`acc += dot(a, b)`), the `mem.dot`
sums into the carried array in place (`accumulate`), kept in the target's `accumulator` scope for
the whole loop when it has one: no sum array per iteration, no elementwise add. Where the target
addresses the accumulator's elements, the carried tile lives there, filled with its init and
read by what follows the loop, with no array copied in and out. So does a sum the
loop rescales element by element before adding the dot (`rescaled_sums.py`), where the target
addresses the accumulator's elements (`accumulator_elements`); where it addresses only each
thread's own (`accumulator_slots`: ssa.lower_parallel walks them), the rescale still overwrites
the accumulator in place, and the sum is copied in before the loop and out after. A tile computed
before a loop that a block-wide op in it takes whole (a scaled operand) is filled once,
before the loop, not recomputed into its array in every iteration.

Where the target copies boxes block-wide (capability `box_copy`: `mem.copy_box_in` and
`mem.copy_box_out`), tiles that block-wide ops take or make move so: a load only dots read whose
access is a box (`boxes.py`) fills its array (kept [rows, columns] for the target: `shape`) with
one `mem.copy_box_in`, and a store of a tile held in an array a block-wide op wrote is one
`mem.copy_box_out`. An access's guards fold into its first dim (its base moved to its size: every
element out of bounds).

Each other array fill and store is an `scf.parallel` over the tile's elements (with the tile's
`shape`, which a target may run as a nest of its dims); whether a target
runs those serially or across threads is `ssa.lower_parallel`'s business. Arrays are declared at
the top of the kernel with the target's `memory_scopes["tile"]` scope.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel, TileType
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.hardware_dependent.lower_tiles_to_loops.lowering import TileLowering
from compiler.passes.hardware_dependent.lower_tiles_to_loops.narrow_sums import widen_narrow_sums
from compiler.passes.hardware_dependent.lower_tiles_to_loops.reductions import COMBINE
from compiler.passes.registry import register

# The tile-level ops this pass turns into loops. A target without tile values takes these and no
# other tile-level op: a sort, a gather or a scan is decomposed before, by
# ssa.lower_backend_intrinsics.
LOWERED_OPS = frozenset(
    {"tile.arange", "tile.broadcast", "tile.expand_dims", "tile.trans", "tile.reshape"}
    | {"linalg.dot", *COMBINE}
)


@register
@dataclass(frozen=True)
class LowerTilesToLoops(Pass):
    name = "ssa.lower_tiles_to_loops"
    category = "hardware-dependent"
    description = "targets without tile values: tiles become arrays and loops of scalar ops"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return not ctx.require_target(self.name).capability("value_semantics", True)

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if not self.applies(kernel, ctx):
            return False
        target = ctx.target
        scope = target.memory_scopes.get("tile")
        if scope is None:
            raise PassError(
                f"{self.name}: target {target.name} has no memory scope for tiles; add "
                "memory_scopes['tile'] (e.g. 'local' or 'shared') to its record"
            )
        # Scalars that change (carried, branch results) are computed alike by every thread of a
        # program, so each thread may keep its own copy.
        cell_scope = target.memory_scopes.get("scalar", scope)
        changed = _has_tiles_or_cells(kernel)
        widen_narrow_sums(kernel)  # a tile op on tiles: changed already
        TileLowering(self.name, kernel, target, scope, cell_scope).run()
        return changed


def _has_tiles_or_cells(kernel: Kernel) -> bool:
    """Whether the lowering changes `kernel`: every tile turns into arrays and scalars (no tile type
    is left to print), a value carried by `scf.for` or a result of `scf.if` gets a cell (a new
    `mem.alloc`); every other op is copied as it is, so without either the IR prints the same."""
    for op in kernel.walk():
        if op.name in ("scf.for", "scf.while", "scf.if") and op.results:
            return True
        for value in (*op.operands, *op.results):
            if isinstance(value.type, TileType):
                return True
    return False
