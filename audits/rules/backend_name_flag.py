"""LWA006: shared passes, IR and emitters that branch on which backend they serve."""

from __future__ import annotations

import libcst as cst

from audits.rules.base import Rule, RuleInfo
from audits.rules.denotation import denoted_word
from audits.syntax import call_arguments, callee_name, dotted_name

_TYPE_TESTS = {"isinstance", "issubclass"}
_MATCHING_CALLS = {
    "startswith", "endswith", "__eq__", "__contains__", "eq", "contains", "get", "hasattr",
}  # fmt: skip


class BackendNameFlag(Rule):
    info = RuleInfo(
        code="LWA006",
        name="backend-name-flag",
        summary="shared code (passes, IR, frontend, shared emitter) that asks which backend it is",
        fix=(
            "ask the target instead: target.has(op), target.capability(...), the spelling table; "
            "put what only one backend needs in that backend's folder or its Target record"
        ),
    )
    must_flag = (
        'def run(kernel, backend):\n    if backend == "cuda":\n        return 1',
        'def run(kernel, target):\n    return target.name in ("cuda", "tilelang")',
        "def run(kernel, target):\n    return isinstance(target, CudaTarget)",
        "def run(kernel, target):\n    if target.is_triton:\n        return 1",
        'def run(target):\n    match target.name:\n        case "tvm":\n            return 1',
        'SPELLINGS = {"triton": 1, "cuda": 2}',
        "from compiler.backends.cuda import CUDA_TARGET",
        "def _emit_cuda_header(lines): ...",
        'BACKEND = "triton"\ndef run(kernel, target):\n    return target.name == BACKEND',
        "def run(kernel, target):\n    return type(target) is TileLangTarget",
        "import os\ndef run():\n    return os.environ.get('NTC_BACKEND') == 'tvm'",
    )
    must_pass = (
        'def run(kernel, target):\n    if not target.has("linalg.dot"):\n        return 1',
        'def run(kernel, target):\n    return target.capability("dot_min") >= 16',
        'def name(backend):\n    return f"ssa.{backend}.optimize_schedule"',
        "def run(kernel, target):\n    return target.spelling[kernel.op.name]",
        "def tile_sizes(target):\n    return target.capability('power_of_two_tiles')",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._backends = context.settings.backend_words
        self._active = context.settings.shared

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left] + [target.comparator for target in node.comparisons]
        self._flag_first(node, operands, "compares with backend")

    def visit_If(self, node: cst.If) -> None:
        self._flag_flag_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._flag_flag_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._flag_flag_test(node.test)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._flag_flag_test(node.left)
        self._flag_flag_test(node.right)

    def visit_MatchValue(self, node: cst.MatchValue) -> None:
        self._flag_first(node, [node.value], "matches on backend")

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        self._flag_first(node, [node.cls], "matches on backend class")

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self._flag_first(node, [node.key], "keys a table by backend")

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        if isinstance(node.slice, cst.Index):
            self._flag_first(node, [node.slice.value], "looks up by backend")

    def visit_Call(self, node: cst.Call) -> None:
        callee = callee_name(node)
        arguments = call_arguments(node)
        if callee in _TYPE_TESTS and len(arguments) == 2:
            self._flag_first(node, [arguments[1]], f"{callee}() on backend class", any_name=True)
        elif callee in _MATCHING_CALLS and arguments:
            self._flag_first(node, arguments, f"{callee}() with backend")
        elif callee is not None and self._backends.find_identifier(callee):
            self._flag_first(node, [node.func], "calls backend-specific", any_name=True)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        if isinstance(node.decorator, cst.Call):
            self._flag_first(node, call_arguments(node.decorator), "registers under backend")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._flag_definition(node.name, "function")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._flag_definition(node.name, "class")

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._flag_module(node, dotted_name(alias.name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None:
            self._flag_module(node, dotted_name(node.module))

    def _flag_first(self, node, operands, what: str, any_name: bool = False) -> None:
        if not self._active:
            return
        for operand in operands:
            found = denoted_word(operand, self._backends, self.context.evaluator, any_name)
            if found:
                what = f"{what} {found.subject} (backend '{found.word}')"
                self.report(node, what, found.subject, found.origin)
                return

    def _flag_flag_test(self, test: cst.BaseExpression) -> None:
        if isinstance(test, cst.UnaryOperation):
            test = test.expression
        if isinstance(test, cst.Call):
            test = test.func
        if isinstance(test, (cst.Name, cst.Attribute)):
            self._flag_first(test, [test], "branches on backend flag", any_name=True)

    def _flag_definition(self, name: cst.Name, kind: str) -> None:
        word = self._backends.find_identifier(name.value) if self._active else None
        if word:
            self.report(name, f"{kind} '{name.value}' is specific to backend '{word}'", name.value)

    def _flag_module(self, node: cst.CSTNode, module: str | None) -> None:
        word = self._backends.find_identifier(module) if module and self._active else None
        if word:
            self.report(
                node, f"imports backend-specific module {module} (backend '{word}')", module
            )
