"""ssa.canonicalize: fold, CSE, DCE and LICM until none of them changes the IR."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Kernel
from compiler.passes.base import Pass, PassContext, PassError
from compiler.passes.hardware_independent.canonicalize.conjunctions import normalize_conjunctions
from compiler.passes.hardware_independent.canonicalize.cse import cse
from compiler.passes.hardware_independent.canonicalize.dce import dce
from compiler.passes.hardware_independent.canonicalize.fold import fold
from compiler.passes.hardware_independent.canonicalize.licm import licm
from compiler.passes.registry import register


@register
@dataclass(frozen=True)
class Canonicalize(Pass):
    name = "ssa.canonicalize"
    category = "hardware-independent"
    description = "folding, mask-chain normalisation, CSE, DCE and LICM to a fixed point"

    max_iterations: int = 32

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        changed = False
        for _ in range(self.max_iterations):
            # `|`, not `or`: every utility runs in every round.
            rounds = fold(kernel) | normalize_conjunctions(kernel) | cse(kernel)
            if not (rounds | dce(kernel) | licm(kernel)):
                return changed
            changed = True
        raise PassError(
            f"{self.name}: no fixed point after {self.max_iterations} rounds; a rewrite undoes "
            "another (raise max_iterations only if the IR is merely large)"
        )
