"""ssa.specialize_arguments: what a launch found about its index arguments (set by
`compiler/runtime/specialization.py`) read inside the kernel. Those equal to 1 (kernel attr
`unit_arguments`) become the constant 1, so that a unit stride's products fold away and offsets
along it step by one element, as vector accesses need. Those a divisor divides (attr
`multiple_arguments`, [name, divisor] pairs) read as `(arg // divisor) * divisor`: the same
number, in a form a target's own analysis (TileLang's) proves a multiple, so that rows of a box
start aligned and its bound checks hold for whole vectors. The arguments stay in the signature;
the launch still passes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Builder, Kernel, ScalarType, Value
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class SpecializeArguments(Pass):
    name = "ssa.specialize_arguments"
    category = "hardware-independent"
    description = "index arguments the launch found equal to 1 or a multiple read as such"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return bool(kernel.attrs.get("unit_arguments") or kernel.attrs.get("multiple_arguments"))

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        used = {v for op in kernel.walk() for v in op.operands}
        names = kernel.attrs.get("unit_arguments") or ()
        units = [v for v in self.arguments(kernel, "unit_arguments", names) if v in used]
        pairs = kernel.attrs.get("multiple_arguments") or ()
        found = self.arguments(kernel, "multiple_arguments", [name for name, _ in pairs])
        multiples = [
            (v, divisor)
            for v, (_, divisor) in zip(found, pairs, strict=True)
            if v in used and v not in units
        ]
        if not units and not multiples:
            return False
        b = Builder(kernel.body)
        b.index = 0
        if units:
            one = b.constant(1, "index")
            for arg in units:
                kernel.replace_uses(arg, one)
        for arg, divisor in multiples:
            # its readers move to a stand-in first, so that the multiple itself still reads arg
            stand_in = Value(arg.type)
            kernel.replace_uses(arg, stand_in)
            step = b.constant(divisor, "index")
            kernel.replace_uses(
                stand_in, b.value("arith.mul", b.value("arith.idiv", arg, step), step)
            )
        return True

    def arguments(self, kernel: Kernel, attr: str, names) -> list[Value]:
        """The index arguments of these `names` (from kernel attribute `attr`)."""
        args = {v.name: v for v in kernel.args}
        found = []
        for name in names:
            if name not in args or args[name].type != ScalarType("index"):
                raise PassError(
                    f"{self.name}: @{kernel.name} has no index argument {name!r} to specialize; "
                    f"name index arguments in attributes {{{attr} = [...]}}"
                )
            found.append(args[name])
        return found
