"""ssa.specialize_arguments: the index arguments a launch found equal to 1 (kernel attr
`unit_arguments`, set by `compiler/runtime/specialization.py`) become the constant 1 inside the
kernel, so that a unit stride's products fold away and offsets along it step by one element, as
vector accesses need. The arguments stay in the signature; the launch still passes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Builder, Kernel, ScalarType
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class SpecializeArguments(Pass):
    name = "ssa.specialize_arguments"
    category = "hardware-independent"
    description = "index arguments the launch found equal to 1 read as the constant 1"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        names = kernel.attrs.get("unit_arguments") or ()
        args = {v.name: v for v in kernel.args}
        units = []
        for name in names:
            if name not in args or args[name].type != ScalarType("index"):
                raise PassError(
                    f"{self.name}: @{kernel.name} has no index argument {name!r} to specialize; "
                    "name index arguments in attributes {unit_arguments = [...]}"
                )
            units.append(args[name])
        used = {v for op in kernel.walk() for v in op.operands}
        units = [v for v in units if v in used]
        if not units:
            return False
        b = Builder(kernel.body)
        b.index = 0
        one = b.constant(1, "index")
        for arg in units:
            kernel.replace_uses(arg, one)
        return True
