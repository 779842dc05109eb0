"""What a rule is: a libcst visitor with a stable code, a fix, and its own examples.

All enabled rules of a file run together in one batched traversal of its parse tree. A rule reports
nodes; positions are computed afterwards, and only for files that have reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst

from audits.config import AuditConfig, FileSettings
from audits.evaluation import Evaluator, Origin
from audits.syntax import STRING_NODES, first_statement_string


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
    what: str
    fix: str
    subject: str
    origin: Origin | None = None  # where an evaluated value was built


@dataclass(frozen=True)
class Embedded:
    """Python source the code runs or decodes (`exec(...)`, a base64 blob): audited as a module."""

    node: cst.CSTNode
    text: str
    how: str


@dataclass
class FileContext:
    path: str
    config: AuditConfig
    settings: FileSettings
    registry_ops: frozenset[str] | None
    evaluator: Evaluator
    depth: int = 0  # 0 for a file; 1 and more for code embedded in it
    docstrings: set[int] = field(default_factory=set)
    prose: set[int] = field(default_factory=set)  # strings standing alone as statements
    reports: list[Report] = field(default_factory=list)
    embedded: list[Embedded] = field(default_factory=list)

    def is_docstring(self, node: cst.CSTNode) -> bool:
        return id(node) in self.docstrings

    def is_prose(self, node: cst.CSTNode) -> bool:
        """A docstring, or a string that stands alone as a statement (an attribute's docstring,
        a comment written as a string): documentation, never a value the code uses."""
        return id(node) in self.prose

    def embed(self, node: cst.CSTNode, text: str, how: str) -> None:
        """Audit `text` as Python source found at `node` (each text once per file)."""
        if all(embedded.text != text for embedded in self.embedded):
            self.embedded.append(Embedded(node, text, how))


class Rule:
    """Hooks are named as in libcst visitors: visit_<Node>(node), leave_<Node>(original_node)."""

    info: ClassVar[RuleInfo]
    must_flag: ClassVar[tuple[str, ...]]  # snippets the rule must flag (as a shared module)
    must_pass: ClassVar[tuple[str, ...]]  # snippets it must leave alone

    def __init__(self, context: FileContext) -> None:
        self.context = context
        self.vocabulary = context.settings.vocabulary

    def report(
        self, node: cst.CSTNode, what: str, subject: str, origin: Origin | None = None
    ) -> None:
        """`what` is the finding; the engine adds where an evaluated value was built and the fix."""
        self.context.reports.append(
            Report(node, self.info.code, what, self.info.fix, subject, origin)
        )


class DocstringCollector:
    """Runs first in the batch so that rules can tell docstrings and prose from other strings."""

    def __init__(self, context: FileContext) -> None:
        self.context = context

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, STRING_NODES):
            self.context.prose.add(id(node.value))

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
