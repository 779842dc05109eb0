"""What a rule is: a libcst visitor with a stable code, a fix, and its own examples.

All enabled rules of a file run together in one batched traversal of its parse tree. A rule reports
nodes; positions are computed afterwards, and only for files that have reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst

from audits.config import AuditConfig, FileSettings
from audits.constants import ConstantIndex
from audits.syntax import first_statement_string


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    summary: str  # what the rule catches
    fix: str  # what to do instead; ends every message of the rule


@dataclass(frozen=True)
class Report:
    node: cst.CSTNode
    code: str
    message: str
    subject: str


@dataclass
class FileContext:
    path: str
    config: AuditConfig
    settings: FileSettings
    registry_ops: frozenset[str] | None
    constants: ConstantIndex
    docstrings: set[int] = field(default_factory=set)
    reports: list[Report] = field(default_factory=list)

    def is_docstring(self, node: cst.CSTNode) -> bool:
        return id(node) in self.docstrings


class Rule:
    """Hooks are named as in libcst visitors: visit_<Node>(node), leave_<Node>(original_node)."""

    info: ClassVar[RuleInfo]
    must_flag: ClassVar[tuple[str, ...]]  # snippets the rule must flag (as a shared module)
    must_pass: ClassVar[tuple[str, ...]]  # snippets it must leave alone

    def __init__(self, context: FileContext) -> None:
        self.context = context
        self.vocabulary = context.settings.vocabulary

    def report(self, node: cst.CSTNode, what: str, subject: str) -> None:
        message = f"{what}; {self.info.fix}"
        self.context.reports.append(Report(node, self.info.code, message, subject))


class DocstringCollector:
    """Runs first in the batch so that rules can tell docstrings from other strings."""

    def __init__(self, context: FileContext) -> None:
        self.context = context

    def visit_Module(self, node: cst.Module) -> None:
        self._collect(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._collect(node.body)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._collect(node.body)

    def _collect(self, body) -> None:
        docstring = first_statement_string(body)
        if docstring is not None:
            self.context.docstrings.add(id(docstring))
