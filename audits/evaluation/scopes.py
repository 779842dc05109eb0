"""Names bound inside functions, lambdas, comprehensions and class bodies, as the walk reaches them.

The tracker runs first in the batched walk. When a rule asks for a value, the bindings made so
far in the enclosing scopes are known: `n = "soft" + "max"; if op.name == n` reads "softmax".
Parameters, `global` names, augmented assignments and `with`/`except` targets are not constants.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import libcst as cst

from audits.evaluation.bindings import OTHER, Binding, assigned, imported_names, target_names


@dataclass
class Scope:
    kind: str  # "function", "class" or "comprehension"
    class_name: str | None = None  # the class whose body this is, or whose method
    names: dict[str, list[Binding]] = field(default_factory=lambda: defaultdict(list))
    globals: set[str] = field(default_factory=set)


class ScopeTracker:
    def __init__(self) -> None:
        self.scopes: list[Scope] = []

    def lookup(self, name: str) -> list[Binding] | None:
        """The bindings of `name` in the innermost scope that binds it; None: resolve it at the
        module level (also a name a function imports: `from base64 import b64decode`)."""
        for scope in reversed(self.scopes):
            if name in scope.globals:
                return None
            if scope.kind != "class" and name in scope.names:
                bindings = scope.names[name]
                return None if all(b.kind == "import" for b in bindings) else bindings
        return None

    @property
    def class_name(self) -> str | None:
        """The class whose method (or body) the walk is in."""
        for scope in reversed(self.scopes):
            if scope.class_name is not None:
                return scope.class_name
        return None

    @property
    def in_class_body(self) -> bool:
        return bool(self.scopes) and self.scopes[-1].kind == "class"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        owner = self.scopes[-1].class_name if self.in_class_body else self.class_name
        self._push("function", owner, _parameters(node.params))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._push("function", self.class_name, _parameters(node.params))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        top_level = not self.scopes
        self._push("class", node.name.value if top_level else None, [])

    def visit_ListComp(self, node: cst.ListComp) -> None:
        """A comprehension is a scope of its own, binding its `for` names over their iterables."""
        scope = Scope("comprehension", None)
        loop = node.for_in
        while loop is not None:
            for name in target_names(loop.target):
                scope.names[name].append(Binding("each", loop.iter))
            loop = loop.inner_for_in
        self.scopes.append(scope)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp

    def _leave_scope(self, original_node: cst.CSTNode) -> None:
        self.scopes.pop()

    leave_FunctionDef = leave_Lambda = leave_ClassDef = _leave_scope
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _leave_scope

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if not self._local():
            return
        for small in node.body:
            if isinstance(small, (cst.Global, cst.Nonlocal)):
                self.scopes[-1].globals.update(name.name.value for name in small.names)
            elif isinstance(small, (cst.Import, cst.ImportFrom)):
                for local, _ in imported_names(small):  # resolved as the module's imports are
                    self.scopes[-1].names[local].append(Binding("import"))
            else:
                for name, binding in assigned(small):
                    self.scopes[-1].names[name].append(binding)

    def visit_For(self, node: cst.For) -> None:
        if self._local():
            for name in target_names(node.target):
                self.scopes[-1].names[name].append(Binding("each", node.iter))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self.scopes and isinstance(node.target, cst.Name):
            self.scopes[-1].names[node.target.value].append(Binding("value", node.value))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if self._local() and node.asname is not None:
            for name in target_names(node.asname.name):
                self.scopes[-1].names[name].append(OTHER)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if self._local() and node.name is not None:
            for name in target_names(node.name.name):
                self.scopes[-1].names[name].append(OTHER)

    def _local(self) -> bool:
        """Bindings in a class body are class attributes, which the module index holds."""
        return bool(self.scopes) and self.scopes[-1].kind != "class"

    def _push(self, kind: str, class_name: str | None, parameters: list[str]) -> None:
        scope = Scope(kind, class_name)
        for name in parameters:
            scope.names[name].append(OTHER)
        self.scopes.append(scope)


def _parameters(params: cst.Parameters) -> list[str]:
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    return [param.name.value for param in every]
