"""ssa.analyze_effects: record which buffer arguments the kernel reads and writes."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel
from compiler.passes.base import Pass, PassContext
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class AnalyzeEffects(Pass):
    name = "ssa.analyze_effects"
    category = "hardware-independent"
    description = "record the buffer arguments loaded (reads) and stored (writes) on the kernel"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        effects = {
            "reads": _buffers(kernel, ("mem.load", "mem.atomic")),
            "writes": _buffers(kernel, ("mem.store", "mem.atomic")),
        }
        before = {key: kernel.attrs.get(key) for key in effects}
        kernel.attrs.update(effects)
        return before != effects


def _buffers(kernel: Kernel, op_names: tuple[str, ...]) -> list[str]:
    """Buffer arguments used by these ops, in argument order (so renaming changes only names)."""
    used = {op.operands[0] for op in kernel.walk() if op.name in op_names}
    return [arg.name for arg in kernel.args if arg in used]
