"""A launch option the caller gives (`num_warps`, `num_stages` in `ctx.options`) as NineToothed
takes it: an int fixes the value; a tuple lists the values autotuning may choose from, and without
measurement the pass's own rule picks the nearest of them (the smaller on a tie), so a program
written for NineToothed's tuple options compiles the same way everywhere."""

from __future__ import annotations

import math

from compiler.passes.base import PassError


def chosen_option(name: str, given: object, rule: int) -> int:
    """The value of option `name`: `given` (an int, or a tuple of candidates), else `rule`."""
    if not given:
        return int(rule)
    if isinstance(given, int):
        return given
    if isinstance(given, tuple | list) and given and all(isinstance(v, int) for v in given):
        return min(given, key=lambda value: (abs(math.log2(value) - math.log2(rule)), value))
    raise PassError(f"{name}={given!r}: give an int or a tuple of ints (the values to tune over)")
