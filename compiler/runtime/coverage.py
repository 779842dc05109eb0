"""Every tile a kernel writes has a program to write it. Program i writes the i-th outermost tile
of each tensor the application stores to, and the grid has as many programs as the first tensor
parameter has outer tiles (NineToothed's rule). A written tensor with more outer tiles than that is
left partly unwritten: a wrong answer, with no error.

Before a launch each written tensor's tile count (`Artifact.written_tiles`) is evaluated for these
arguments and compared with the grid. Where one has more, the kernel is lowered again with the
block sizes the caller did not give raised, by the fewest doublings that cover every written
tensor: a target's `tile_cap` is a preference for small arrays, a wrong answer is not. Where no
such schedule exists within the symbols' bounds, the launch is refused, naming the tensor, both
counts and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping

from compiler.backends.artifact import Artifact
from compiler.ir import parse_kernel
from compiler.runtime.bindings import LaunchError
from compiler.runtime.grid import GridError, evaluate_grid, integer_bindings
from compiler.runtime.relower import relowered

# Raising block sizes stops here: a tile dim past this is no longer a schedule, the arrangement
# itself differs from what the grid covers.
LARGEST_BLOCK = 1024
MOST_DOUBLINGS = 10


def covering(artifact: Artifact, bindings: Mapping[str, object]) -> Artifact:
    """`artifact` where its programs cover every tensor it writes, else the kernel lowered with a
    schedule that does."""
    numbers = integer_bindings(bindings)
    try:
        short = _uncovered(artifact, artifact.schedule, numbers)
    except GridError:
        return artifact  # an argument is missing or wrong: the launcher's checks say which
    if short is None:
        return artifact
    schedule = _covering_schedule(artifact, numbers)
    if schedule is None:
        raise LaunchError(_refusal(artifact, *short))
    return relowered(artifact, schedule)


def _uncovered(
    artifact: Artifact, schedule: Mapping[str, int], numbers: Mapping[str, int]
) -> tuple[str, int, int] | None:
    """(tensor, its outer tiles, programs) for the first written tensor the grid does not cover."""
    if not artifact.written_tiles:
        return None
    env = {**numbers, **schedule}
    programs = evaluate_grid(artifact.grid, env)
    for name, expression in artifact.written_tiles:
        tiles = evaluate_grid(expression, env)
        if tiles > programs:
            return name, tiles, programs
    return None


def _covering_schedule(artifact: Artifact, numbers: Mapping[str, int]) -> dict[str, int] | None:
    """The schedule with the fewest doublings of the free block sizes that covers every written
    tensor; among those with as many, the first in the symbols' order."""
    free = [name for name in artifact.schedule if name not in artifact.schedule_given]
    highest = {name: high for name, _, high in parse_kernel(artifact.initial_ssa).attrs["meta"]}
    steps = {}
    for name in free:
        top = min(highest.get(name) or LARGEST_BLOCK, LARGEST_BLOCK)
        value, count = artifact.schedule[name], 0
        while value * 2 <= top:
            value, count = value * 2, count + 1
        steps[name] = count
    for total in range(1, MOST_DOUBLINGS + 1):
        for doublings in _spread(total, [steps[n] for n in free]):
            schedule = {
                **artifact.schedule,
                **{n: artifact.schedule[n] << d for n, d in zip(free, doublings, strict=True)},
            }
            if _uncovered(artifact, schedule, numbers) is None:
                return schedule
    return None


def _spread(total: int, limits: list[int]):
    """Every way to share `total` doublings out over symbols that take at most `limits`."""
    if not limits:
        if total == 0:
            yield ()
        return
    for first in range(min(limits[0], total) + 1):
        for rest in _spread(total - first, limits[1:]):
            yield (first, *rest)


def _refusal(artifact: Artifact, name: str, tiles: int, programs: int) -> str:
    given = ", ".join(artifact.schedule_given)
    raising = f" with the block sizes given ({given}); give larger ones, or" if given else ";"
    return (
        f"@{artifact.kernel_name}: {name} has {tiles} outermost tiles but the launch has "
        f"{programs} programs (one per outer tile of the first tensor parameter), so "
        f"{tiles - programs} of its tiles would never be written{raising} arrange {name} with "
        "no more outer tiles than the first tensor parameter (tile it with larger blocks, or "
        "make it the first parameter)"
    )
