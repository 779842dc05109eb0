"""ssa.lower_backend_intrinsics: every op the target does not accept is decomposed generically,
then every op whose operand dtype the target does not take is widened (see `widen.py`).

Before rewriting anything the pass checks that each illegal op has a chain of decompositions ending
in legal ops, so a target that lacks both `math.exp` and `math.exp2` fails with the cycle named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compiler.ir import Kernel
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.helpers.decompositions import DECOMPOSITIONS, decompose
from compiler.passes.helpers.widen import unaccepted_dtype, widen
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class LowerBackendIntrinsics(Pass):
    name = "ssa.lower_backend_intrinsics"
    category = "backend-specific"
    description = "decompose ops the target lacks, widen dtypes it does not take for an op"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        """An op the target lacks, or one on an operand dtype it does not take."""
        target = ctx.require_target(self.name)
        return any(
            op.name not in target.legal_ops or unaccepted_dtype(target, op) is not None
            for op in kernel.walk()
        )

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        target = ctx.require_target(self.name)
        for name in sorted({op.name for op in kernel.walk()}):
            self._check_lowerable(name, target, ())
        changed = False
        # Terminates: _check_lowerable proved every chain of decompositions ends in legal ops.
        while illegal := [op for op in kernel.walk() if op.name not in target.legal_ops]:
            for op in illegal:
                decompose(kernel, op)
            changed = True
        for op in list(kernel.walk()):
            if unaccepted_dtype(target, op) is not None:
                widen(kernel, op, target, self.name)
                changed = True
        for op in kernel.walk():
            dtype = unaccepted_dtype(target, op)
            if dtype is not None:
                raise PassError(
                    f"{self.name}: {op.name} on {dtype} is not accepted by target {target.name} "
                    "after widening; let the target take it"
                )
        return changed

    def _check_lowerable(self, name: str, target: Any, chain: tuple[str, ...]) -> None:
        if name in target.legal_ops:
            return
        if name in chain:
            cycle = " -> ".join((*chain, name))
            raise PassError(
                f"{self.name}: cannot lower {chain[0]} for target {target.name}: its generic "
                f"rewrites form a cycle ({cycle}); give the target a spelling for one of them"
            )
        decomposition = DECOMPOSITIONS.get(name)
        if decomposition is None:
            needed = f" (needed to lower {' -> '.join(chain)})" if chain else ""
            device = getattr(target, "device", None)  # a form for one device, or any
            form = f"{target.name} ({device})" if device else target.name
            raise PassError(
                f"{self.name}: {name} is not legal for target {form}{needed} and has no generic "
                "rewrite: this program needs what that form lacks; "
                "compile it for another backend or device (to teach the compiler instead, add a "
                f"rewrite to compiler/passes/helpers/decompositions.py or a spelling for {name} "
                "to the target)"
            )
        for produced in sorted(decomposition.produces):
            self._check_lowerable(produced, target, (*chain, name))
