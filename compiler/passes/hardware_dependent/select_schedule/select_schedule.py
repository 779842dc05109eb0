"""ssa.select_schedule: bind every meta symbol (block size) to an int and substitute it everywhere.

Values the caller gives (pass options, then `ctx.options`) win; the others follow a static rule:
`largest`: the largest power of two in [lower bound, min(upper bound, cap)] (the smallest power of
two >= lower bound when that range has none); `smallest`: the smallest power of two >= lower bound.
A dim of a `linalg.dot` operand the target accepts natively is raised to the target's `dot_min`
capability. A target whose tiles must be powers of two (`power_of_two_tiles`: Triton's
`tl.arange`) refuses a given value that is not one, and a tile past the target's
`max_tile_elements` is refused whatever sized it. The binding goes to `kernel.attrs["schedule"]`
with a `schedule_reason`, the names given in `schedule_given` (a launch may raise the others:
compiler/runtime/coverage.py).

Measured autotuning: when the caller lends a `Tuner` (`PassContext.tuner`; a kernel handle does on
a GPU), the symbols nobody gave are tuned instead: candidates are the caller's configurations
(`ctx.options["configs"]`), else up to `max_configs` powers-of-two schedules nearest the rule's
choice (each symbol in [lower bound, min(upper bound, tune_cap)]); each is timed, the fastest wins
and is cached per (kernel, shapes, backend, device). Without a tuner (on the CPU) the static rule
decides. The trace records the choice and the reason as a remark.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from compiler.ir import Kernel, Operation, TileType, print_kernel, value_type
from compiler.passes.base import Pass, PassContext, PassError, read_option
from compiler.passes.hardware_dependent.select_schedule.autotune import (
    Schedule,
    candidates,
    tune,
    tuning_key,
)
from compiler.passes.registry import register

# Attributes holding tile dims, by op.
DIM_ATTRS = {"tile.arange": "size", "tile.broadcast": "shape", "tile.reshape": "shape"}
RULES = ("largest", "smallest")
OWN_OPTIONS = ("rule", "cap", "tune", "tune_cap", "max_configs")


@register
@dataclass(frozen=True)
class SelectSchedule(Pass):
    name = "ssa.select_schedule"
    category = "hardware-dependent"
    description = "bind meta symbols (block sizes) to ints: given values, else a static rule"

    rule: str = "largest"
    cap: int = 64
    tune: bool = True  # time candidates when the caller lends a tuner
    tune_cap: int = 1024
    max_configs: int = 8
    values: tuple[tuple[str, int], ...] = ()  # from options named after meta symbols

    @classmethod
    def from_options(cls, options: dict[str, str]) -> Pass:
        own = {k: v for k, v in options.items() if k in OWN_OPTIONS}
        values = tuple(
            (k, read_option(cls.name, k, v, int)) for k, v in options.items() if k not in own
        )
        return dataclasses.replace(super().from_options(own), values=values)

    def options(self) -> dict[str, object]:
        own = {name: getattr(self, name) for name in OWN_OPTIONS}
        return own | dict(self.values)

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if self.rule not in RULES:
            raise PassError(f"{self.name}: unknown rule {self.rule!r}; rules: {', '.join(RULES)}")
        before = {k: kernel.attrs.get(k) for k in ("meta", "schedule", "schedule_reason")}
        meta = {name: (low or 1, high) for name, low, high in kernel.attrs.pop("meta", [])}
        schedule, reasons = self._choose(kernel, ctx, meta)
        if meta or "schedule" not in kernel.attrs:
            kernel.attrs["schedule"] = [[name, value] for name, value in schedule.items()]
            kernel.attrs["schedule_reason"] = "; ".join(reasons) or "no meta symbols"
            given = [name for name in meta if name in self._given(ctx, meta)]
            if given:
                kernel.attrs["schedule_given"] = given
            ctx.remark(f"schedule {kernel.attrs['schedule_reason']}")
        parameters = set(kernel.attrs.get("constexpr_params") or ())
        most = ctx.target.capability("max_tile_elements") if ctx.target else None
        _substitute(kernel, schedule, parameters, most)
        return before != {k: kernel.attrs.get(k) for k in before}

    def _choose(
        self, kernel: Kernel, ctx: PassContext, meta: dict[str, tuple]
    ) -> tuple[dict[str, int], list[str]]:
        schedule, reasons, free = self._static(kernel, ctx, meta)
        if not free:
            return schedule, reasons
        if ctx.tuner is None or not self.tune:
            why = (
                "tuning is off"
                if ctx.tuner
                else "nothing lent a tuner: kernels are timed on a GPU, or with autotune='measure'"
            )
            return schedule, reasons + [f"static rule ({why})"]
        options = self._candidates(kernel, ctx, free, schedule)
        choice = tune(ctx.tuner, tuning_key(print_kernel(kernel), ctx.tuner.identity), options)
        kept = [r for r, name in zip(reasons, meta, strict=True) if name not in choice.schedule]
        spelled = ", ".join(f"{n}={v}" for n, v in choice.schedule.items())
        return schedule | choice.schedule, kept + [f"{spelled} ({choice.reason})"]

    def tuning_candidates(self, kernel: Kernel, ctx: PassContext) -> list[Schedule]:
        """The schedules measured autotuning would time for `kernel` (not yet run through this
        pass), for the meta symbols nobody gave; [] when every symbol is given."""
        meta = {name: (low or 1, high) for name, low, high in kernel.attrs.get("meta", [])}
        schedule, _, free = self._static(kernel, ctx, meta)
        return self._candidates(kernel, ctx, free, schedule) if free else []

    def _static(
        self, kernel: Kernel, ctx: PassContext, meta: dict[str, tuple]
    ) -> tuple[dict[str, int], list[str], dict[str, tuple]]:
        """(the values given or chosen by the static rule, their reasons, the symbols nobody
        gave with their bounds)."""
        given = self._given(ctx, meta)
        unknown = sorted(set(dict(self.values)) - set(meta))
        if unknown:
            raise PassError(
                f"{self.name}: {unknown[0]} is not a meta symbol of @{kernel.name}; "
                f"meta symbols: {', '.join(meta) or 'none'}"
            )
        dot_min = _dot_min(kernel, ctx)
        cap = min(self.cap, self._target_cap(ctx))
        schedule, reasons = {}, []
        for name, (low, high) in meta.items():
            if name in given:
                value, why = int(given[name]), "given"
                if value < low or (high is not None and value > high):
                    raise PassError(f"{self.name}: {name}={value} is outside [{low}, {high}]")
                self._check_power_of_two(ctx, name, value)
            else:
                value, why = self._rule(low, high, dot_min.get(name, 1), cap)
            schedule[name] = value
            reasons.append(f"{name}={value} ({why})")
        return schedule, reasons, {n: meta[n] for n in meta if n not in given}

    def _check_power_of_two(self, ctx: PassContext, name: str, value: int) -> None:
        if value & (value - 1) == 0 or not ctx.target:
            return
        if ctx.target.capability("power_of_two_tiles"):
            below, above = _pow2_at_least(value) // 2, _pow2_at_least(value)
            raise PassError(
                f"{self.name}: {name}={value} sizes tiles, and {ctx.target.name} tiles must be "
                f"powers of two; give {name}={below} or {name}={above}"
            )

    def _target_cap(self, ctx: PassContext) -> int:
        """A target that holds tiles in arrays of its own memory caps their size (`tile_cap`)."""
        return (ctx.target.capability("tile_cap") if ctx.target else None) or self.tune_cap

    def _given(self, ctx: PassContext, meta: dict) -> dict[str, object]:
        return {k: v for k, v in ctx.options.items() if k in meta} | dict(self.values)

    def _candidates(
        self, kernel: Kernel, ctx: PassContext, free: dict, rule: Schedule
    ) -> list[Schedule]:
        """The caller's configurations (`ctx.options["configs"]`), else generated ones."""
        dot_min = _dot_min(kernel, ctx)
        cap = min(self.tune_cap, self._target_cap(ctx))
        limit = ctx.options.get("max_num_configs") or self.max_configs
        given = ctx.options.get("configs")
        if given:
            wrong = [c for c in given if set(c) != set(free)]
            if wrong:
                raise PassError(
                    f"{self.name}: configuration {wrong[0]} of @{kernel.name} must give exactly "
                    f"the untuned meta symbols {sorted(free)}"
                )
            return [dict(c) for c in given][:limit]
        ranges = {
            name: (_pow2_at_least(max(low, dot_min.get(name, 1))), min(high or cap, cap))
            for name, (low, high) in free.items()
        }
        start = {name: rule[name] for name in free}
        return candidates(ranges, start, limit) or [start]

    def _rule(self, low: int, high: int | None, floor: int, cap: int) -> tuple[int, str]:
        value = _pow2_at_least(max(low, floor))
        why = f"rule {self.rule}, bounds [{low}, {high}]"
        if self.rule == "largest":
            top = cap if high is None else min(high, cap)
            while value * 2 <= top:
                value *= 2
            why += f", cap {cap}"
        if high is not None and value > high:
            value = high
        return value, why + (f", dot_min {floor}" if floor > 1 else "")


def _pow2_at_least(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _dot_min(kernel: Kernel, ctx: PassContext) -> dict[str, int]:
    """The smallest size the target's native dot takes, for each symbol that is a dot's dim."""
    target = ctx.target
    if target is None or "linalg.dot" not in target.legal_ops:
        return {}
    smallest = target.capability("dot_min", 1)
    return {
        dim: smallest
        for op in kernel.walk()
        if op.name == "linalg.dot"
        for value in op.operands
        for dim in value.type.shape
        if isinstance(dim, str)
    }


def _substitute(
    kernel: Kernel, schedule: dict[str, int], parameters: set[str], most: int | None
) -> None:
    """Bind the meta symbols; dims naming compile-time parameters stay as they are. `most`: the
    target's largest tile, in elements."""
    for op in kernel.walk():
        if op.name == "index.meta":
            _bind_meta(op, schedule)
        key = DIM_ATTRS.get(op.name)
        if key is not None:
            op.attrs[key] = _bind_dims(op.attrs[key], schedule)
        values = op.results + [arg for region in op.regions for arg in region.block.args]
        for value in values:
            if isinstance(value.type, TileType):
                value.type = value_type(value.type.dtype, _bind_dims(value.type.shape, schedule))
                _check_size(op, value.type, schedule, most)
        dims = [d for value in values for d in value.type.shape]
        if key is not None:
            dims += op.attrs[key] if isinstance(op.attrs[key], list) else [op.attrs[key]]
        unbound = sorted({d for d in dims if isinstance(d, str) and d not in parameters})
        if unbound:
            raise PassError(
                f"ssa.select_schedule: {op.name} keeps symbolic dims {unbound}; list each meta "
                "symbol in kernel.attrs['meta'] as [name, lower_bound, upper_bound]"
            )


def _check_size(op: Operation, type_: TileType, schedule: dict[str, int], most: int | None):
    if most is None or any(isinstance(d, str) for d in type_.shape):
        return
    elements = math.prod(type_.shape)
    if elements > most:
        given = ", ".join(f"{n}={v}" for n, v in schedule.items()) or "no block sizes"
        raise PassError(
            f"ssa.select_schedule: {op.name} makes a {type_} of {elements} elements, past the "
            f"target's {most} (with {given}); choose smaller block sizes or tiles"
        )


def _bind_dims(dims: object, schedule: dict[str, int]) -> object:
    """A dim, or a list or tuple of dims, with meta symbols replaced by their values."""
    if isinstance(dims, list | tuple):
        return type(dims)(schedule.get(d, d) for d in dims)
    return schedule.get(dims, dims)


def _bind_meta(op: Operation, schedule: dict[str, int]) -> None:
    name = op.attrs["name"]
    if name not in schedule:
        raise PassError(f"ssa.select_schedule: index.meta {name!r} is not in kernel.attrs['meta']")
    op.name, op.attrs = "arith.constant", {"value": schedule[name]}
