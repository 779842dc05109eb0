"""LWA001: functions, classes, callables and modules named after an operator."""

from __future__ import annotations

from pathlib import PurePosixPath

import libcst as cst

from audits.rules.base import Rule, RuleInfo
from audits.syntax import callee_name


class OperatorNamedDefinition(Rule):
    info = RuleInfo(
        code="LWA001",
        name="operator-named-definition",
        summary="a function, class, callable or module named after an operator",
        fix=(
            "lower every kernel through the same generic path: express the operator with the "
            "IR's generic ops in a generic pass, and if a primitive is missing add a generic op "
            "to the op registry (or a capability to the target) instead of an operator entry point"
        ),
    )
    must_flag = (
        "def lower_matmul(kernel): ...",
        "def emit_mm_kernel(op): ...",
        "class FlashAttentionOpIR: ...",
        "class MatmulKernelTemplate: ...",
        "def lower_mm_v2(kernel): ...",
        "def lowerMatMul(kernel): ...",
        "def lowermatmul(kernel): ...",
        "class Emitter:\n    def _emit_layer_norm(self, op): ...",
        "lower_softmax = lambda kernel: kernel",
        "import functools\nemit_attn = functools.partial(print, 'x')",
        "async def run_flash_attn(): ...",
    )
    must_pass = (
        "def address(x): ...",
        "def dotted(name): ...",
        "class Attributes: ...",
        "def summary(trace): ...",
        "def decompose_linalg(kernel): ...",
        "def lower_memory_scopes(kernel): ...",
        "def lower_reductions(kernel): ...",
        "def payne_hanek_reduction(x): ...",
        "def emit_op(op, table): ...",
        "def reduce_sum(tile, axis): ...",
        "def exp2(x): ...",
        "class CommonSubexpressionElimination: ...",
    )

    def visit_Module(self, node: cst.Module) -> None:
        parts = PurePosixPath(self.context.path).with_suffix("").parts
        for part in parts:
            word = self.vocabulary.find(part)
            if word:
                self.report(
                    node, f"module path part '{part}' is named after operator '{word}'", part
                )
                return

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._check(node.name, "function")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._check(node.name, "class")

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Lambda) or callee_name_of(node.value) == "partial":
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self._check(target.target, "callable")

    def _check(self, name: cst.Name, kind: str) -> None:
        word = self.vocabulary.find(name.value)
        if word:
            self.report(name, f"{kind} '{name.value}' is named after operator '{word}'", name.value)


def callee_name_of(node: cst.BaseExpression) -> str | None:
    return callee_name(node) if isinstance(node, cst.Call) else None
