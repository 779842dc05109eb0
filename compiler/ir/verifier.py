"""Checks the IR's invariants; every message names the op (and its position) and what is wrong."""

from __future__ import annotations

import math

from compiler.errors import VerificationError
from compiler.ir.core import Block, Kernel, Operation, Value
from compiler.ir.registry import OPS, OpDef
from compiler.ir.type_rules import TypeRuleError
from compiler.ir.types import ScalarType


def verify(kernel: Kernel) -> None:
    _Verifier(kernel).run()


class _Verifier:
    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.counter = 0

    def fail(self, op: Operation, message: str) -> None:
        raise VerificationError(f"op #{self.counter} ({op.name}) in @{self.kernel.name}: {message}")

    def run(self) -> None:
        names = [v.name for v in self.kernel.args]
        if len(set(names)) != len(names) or not all(names):
            raise VerificationError(f"@{self.kernel.name}: kernel arguments need unique names")
        self.verify_block(self.kernel.body, set(self.kernel.args), in_region=False)

    def verify_block(self, block: Block, visible: set[Value], in_region: bool) -> None:
        scope = set(visible)
        scope.update(block.args)
        last = len(block.ops) - 1
        for position, op in enumerate(block.ops):
            self.counter += 1
            self.verify_op(op, scope)
            if op.name == "scf.yield" and not (in_region and position == last):
                self.fail(op, "scf.yield must end a region's block")
            scope.update(op.results)
        if in_region and (not block.ops or block.ops[-1].name != "scf.yield"):
            raise VerificationError(
                f"@{self.kernel.name}: a region's block must end with scf.yield (after op "
                f"#{self.counter})"
            )

    def verify_op(self, op: Operation, scope: set[Value]) -> None:
        rule = _rule(op.name)
        if rule is None:
            self.fail(op, "not in the op registry (compiler/ir/registry.py)")
        definition, required, allowed = rule
        operands = op.operands
        low, high = definition.operands
        if len(operands) < low or (high is not None and len(operands) > high):
            self.fail(op, f"takes {low}..{high if high is not None else 'n'} operands")
        if not scope.issuperset(operands):
            self.fail(op, "uses a value that is not defined before it in an enclosing block")
        if (op.attrs or required) and not (required <= op.attrs.keys() <= allowed):
            missing = [a for a in definition.attrs if a not in op.attrs]
            unknown = set(op.attrs) - set(definition.attrs) - set(definition.optional_attrs)
            self.fail(op, f"attributes: missing {missing}, unknown {sorted(unknown)}")
        regions = op.regions
        if len(regions) != definition.regions:
            self.fail(op, f"has {len(regions)} regions, expected {definition.regions}")
        types = [r.type for r in op.results]
        if definition.infer is not None:
            try:
                expected = definition.infer([v.type for v in operands], op.attrs)
            except TypeRuleError as error:
                self.fail(op, str(error))
            if expected != types:
                self.fail(op, f"result types {list(map(str, types))} != {list(map(str, expected))}")
        elif definition.results is not None and len(types) != definition.results:
            self.fail(op, f"has {len(types)} results, expected {definition.results}")
        if not regions:
            return
        if op.name == "scf.for":
            self.verify_for(op, scope)
        elif op.name == "scf.if":
            self.verify_if(op, scope)
        elif op.name == "scf.while":
            self.verify_while(op, scope)
        else:
            self.verify_indexed(op, scope)

    def verify_for(self, op: Operation, scope: set[Value]) -> None:
        block = op.regions[0].block
        expected = [ScalarType("index")] + [r.type for r in op.results]
        if [a.type for a in block.args] != expected:
            self.fail(op, "body arguments must be (index, *loop-carried types)")
        step = op.operands[2].owner
        if getattr(step, "name", None) == "arith.constant" and not step.attrs["value"] > 0:
            self.fail(op, "the step must be positive (count a loop down from its trip count)")
        self.verify_block(block, scope, in_region=True)
        self.check_yield(op, block)

    def verify_while(self, op: Operation, scope: set[Value]) -> None:
        condition, body = (region.block for region in op.regions)
        carried = [r.type for r in op.results]
        for block in (condition, body):
            if [a.type for a in block.args] != carried:
                self.fail(op, "condition and body arguments must be the loop-carried types")
            self.verify_block(block, scope, in_region=True)
        if [v.type for v in condition.ops[-1].operands] != [ScalarType("i1")]:
            self.fail(op, "the condition region must yield one i1 scalar")
        self.check_yield(op, body)

    def verify_if(self, op: Operation, scope: set[Value]) -> None:
        if op.operands[0].type != ScalarType("i1"):
            self.fail(op, "condition must be an i1 scalar")
        for region in op.regions:
            if region.block.args:
                self.fail(op, "branches take no arguments")
            self.verify_block(region.block, scope, in_region=True)
            self.check_yield(op, region.block)

    def verify_indexed(self, op: Operation, scope: set[Value]) -> None:
        """scf.parallel / scf.grid: one region whose argument is the iteration's index."""
        block = op.regions[0].block
        if [a.type for a in block.args] != [ScalarType("index")]:
            self.fail(op, "body must take one index argument")
        if "shape" in op.attrs:
            extent = op.operands[0].owner
            constant = isinstance(extent, Operation) and extent.name == "arith.constant"
            if not constant or extent.attrs["value"] != math.prod(op.attrs["shape"]):
                self.fail(op, "the extent of a loop with a shape must be the constant product")
        self.verify_block(block, scope, in_region=True)
        self.check_yield(op, block)

    def check_yield(self, op: Operation, block: Block) -> None:
        yielded = [v.type for v in block.ops[-1].operands]
        if yielded != [r.type for r in op.results]:
            self.fail(op, "scf.yield types must match the op's result types")


_RULES: dict[str, tuple[OpDef, frozenset, frozenset]] = {}


def _rule(name: str) -> tuple[OpDef, frozenset, frozenset] | None:
    """The registry's entry for `name` with the attributes it must have and those it may have (as
    sets); None for an op the registry does not know."""
    definition = OPS.get(name)
    rule = _RULES.get(name)
    if rule is None or rule[0] is not definition:
        if definition is None:
            return None
        required = frozenset(definition.attrs)
        rule = (definition, required, required | set(definition.optional_attrs))
        _RULES[name] = rule
    return rule
