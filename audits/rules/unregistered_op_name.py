"""LWA005: op names outside the IR's closed registry, and coarse op names named after operators."""

from __future__ import annotations

import re

import libcst as cst

from audits.evaluation.operations import TEXT_METHODS
from audits.rules.base import Rule, RuleInfo
from audits.rules.batch import descendants

_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_DIALECT_PREFIX = re.compile(r"([a-z_][a-z0-9_]*)\.")
_FILE_SUFFIXES = {
    "py", "pyi", "json", "toml", "txt", "md", "html", "yaml", "yml", "cfg", "ini", "log", "csv",
    "cu", "cuh", "h", "c", "cc", "cpp", "so", "ptx", "tpl", "j2",
}  # fmt: skip


class UnregisteredOpName(Rule):
    info = RuleInfo(
        code="LWA005",
        name="unregistered-op-name",
        summary="an op name outside the IR's closed registry, or one named after an operator",
        fix=(
            "build kernels from the registered generic ops (scf.for, linalg.dot, reduce.max, "
            "math.exp2, select.where, mem.store, ...); if a primitive is truly missing, add a "
            "generic one to the op registry with its verifier and emitter spellings"
        ),
    )
    must_flag = (
        'def fuse(builder, q, k, v):\n    return builder.create("nt.flash_attention", q, k, v)',
        'NAME = "linalg.softmax"',
        'def f(op):\n    return op.name == "math.lgamma"',
        'PASS_NAME = "ssa.fuse_attention"',
        'OP = "nt." + "flash_attention"',
    )
    must_pass = (
        'def f(op):\n    return op.name == "arith.add"',
        'SPELLING = {"math.exp": "tl.exp({0})", "reduce.sum": "tl.sum({0}, axis={axis})"}',
        'PASS = "ssa.decompose_linalg"',
        'REFERENCE = "torch.matmul"',
        'SOURCE = "tensor.py"',
        'INF = {"arith.constant": "math.inf"}',
        '"""Flash attention is scf.for + linalg.dot + reduce.max, never an attention node."""',
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        config = context.config
        self._dialects = frozenset(config.ir_dialects)
        self._foreign = frozenset(config.foreign_prefixes)
        self._in_registry_file = context.path == config.registry_path
        self._skipped: set[int] = set()

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self._skipped.add(id(node.value))  # spellings, not op names: {"arith.constant": "math.inf"}

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        self._judge(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, (cst.Add, cst.Modulo)):
            self._judge(node)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in TEXT_METHODS:
            self._judge(node)  # "".join(...), "{}.{}".format(...), ...

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._judge(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        text = self.context.evaluator.template(node)
        prefix = _DIALECT_PREFIX.match(text or "")
        if self._in_registry_file and prefix and prefix.group(1) not in self._dialects:
            self.report(node, f"registers ops in dialect '{prefix.group(1)}' outside the IR", text)

    def _judge(self, node: cst.BaseExpression) -> None:
        if id(node) in self._skipped or self.context.is_prose(node):
            return
        text = self.context.evaluator.value(node)
        if not isinstance(text, str):
            return
        for part in descendants(node, into=_has_pieces):  # pieces of one name: judged with it
            self._skipped.add(id(part))
        if not _DOTTED_NAME.fullmatch(text):
            return
        parts = text.split(".")
        if parts[0] in self._foreign or parts[-1] in _FILE_SUFFIXES:
            return
        word = self.vocabulary.find(text)
        origin = self.context.evaluator.origin(node)
        if word:
            self.report(node, f"op name {text!r} is named after operator '{word}'", text, origin)
        elif len(parts) == 2 and parts[0] in self._dialects:
            registry = self.context.registry_ops
            if registry is not None and text not in registry:
                what = f"op name {text!r} is not in the IR's op registry"
                self.report(node, what, text, origin)
        elif self._in_registry_file and len(parts) == 2 and text.islower():
            self.report(node, f"registers op {text!r} in dialect '{parts[0]}' outside the IR", text)


def _has_pieces(node: cst.CSTNode) -> bool:
    """Concatenations and method calls (`"".join(...)`, `.format(...)`) hold a name's pieces."""
    return isinstance(node, (cst.ConcatenatedString, cst.BinaryOperation, cst.Call, cst.Arg)) or (
        isinstance(node, cst.Attribute) and not isinstance(node.value, cst.Name)
    )
