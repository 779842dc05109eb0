"""What each module of a package binds, for the renaming (`renaming.py`): the names it may rename,
those it must keep (reached as attributes and keywords), the functions it defines with their
parameters, and the strings that name something."""

from __future__ import annotations

import re

import libcst as cst

IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
NAMING_CALLS = {"Symbol": 0}  # callee name -> position of the name it is given
NAMING_KEYWORDS = {"name"}


class Bindings(cst.CSTVisitor):
    """The names a module binds outside class bodies, and the functions it defines."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        # Names a class body binds and its methods' parameters: reached as attributes (`C.name`,
        # which stays) and keywords, and as plain names inside; the package keeps each.
        self.attributes: set[str] = set()
        self.parameters: dict[str, set[str]] = {}  # function name -> its parameters' names
        self.functions: set[str] = set()
        self.named: set[str] = set()  # strings that name something: Symbol("N"), name="N"
        self.exported: set[str] = set()  # the strings of `__all__`: this module's names
        self.scopes: list[str] = []  # "class" or "function", innermost last

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name.value)
        self.scopes.append("class")

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._bind(node.name.value):
            self.functions.add(node.name.value)
        self.scopes.append("function")
        parameters = self.parameters.setdefault(node.name.value, set())
        parameters.update(p.name.value for p in parameters_of(node.params))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_Param(self, node: cst.Param) -> None:
        # A method's parameters are kept: its callers reach it as an attribute (`C.method`,
        # `obj.method`), whose keywords cannot be told from a library's.
        if self.scopes[-2:] == ["class", "function"]:
            self.attributes.add(node.name.value)
        else:
            self.names.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_Assign(self, node: cst.Assign) -> None:
        """`__all__ = [...]` names the module's own bindings."""
        targets = [t.target for t in node.targets]
        if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets):
            if isinstance(node.value, cst.List | cst.Tuple):
                for element in node.value.elements:
                    text = string_value(element.value)
                    if text is not None:
                        self.exported.add(text)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        position = NAMING_CALLS.get(callee_name(node))
        for number, arg in enumerate(node.args):
            naming = (arg.keyword is None and number == position) or (
                arg.keyword is not None and arg.keyword.value in NAMING_KEYWORDS
            )
            text = string_value(arg.value) if naming else None
            if text is not None and IDENTIFIER.fullmatch(text):
                self.names.add(text)
                self.named.add(text)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None:
            self.names.add(node.asname.name.value)
        else:
            self.names.add(dotted_name(node.name).partition(".")[0])

    def _bind(self, name: str) -> bool:
        """Bind `name` unless a class body binds it (an attribute: reached as `C.name`)."""
        if self.scopes and self.scopes[-1] == "class":
            self.attributes.add(name)
            return False
        self.names.add(name)
        return True

    def _targets(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Name):
            self._bind(node.value)
        elif isinstance(node, cst.Tuple | cst.List):
            for element in node.elements:
                self._targets(element.value)
        elif isinstance(node, cst.StarredElement):
            self._targets(node.value)


def parameters_of(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    keywords = [params.star_kwarg] if params.star_kwarg else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *keywords]


def callee_name(node: cst.Call) -> str:
    func = node.func
    return func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")


def string_value(node: cst.BaseExpression) -> str | None:
    if not isinstance(node, cst.SimpleString) or node.prefix.lower() not in ("", "r"):
        return None
    return node.raw_value


def dotted_name(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{dotted_name(node.value)}.{node.attr.value}"
    return node.value
