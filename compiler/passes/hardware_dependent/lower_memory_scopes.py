"""ssa.lower_memory_scopes: spell the memory scope of every load and store the target's way."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel, lookup
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class LowerMemoryScopes(Pass):
    name = "ssa.lower_memory_scopes"
    category = "hardware-dependent"
    description = "set `scope` on every memory op from the target's memory-scope table"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        target = ctx.require_target(self.name)
        scope = target.memory_scopes.get("global")
        if scope is None:
            raise PassError(
                f"{self.name}: target {target.name} has no spelling for the global memory scope; "
                "add memory_scopes['global'] to it"
            )
        changed = False
        for op in kernel.walk():
            definition = lookup(op.name)
            spelled = (
                definition.effect in ("read", "write") and "scope" in definition.optional_attrs
            )
            if spelled and op.attrs.get("scope") != scope:
                op.attrs["scope"] = scope
                changed = True
        return changed
