"""Where names get their values: module-level names, class attributes, helper functions, imports.

Each module is indexed once, without running it: top-level and class-level assignments (also
those inside top-level `if`/`try`/`with`/`for` blocks), functions and methods, and imported names.
The project index joins the modules so that `from .kinds import KIND` resolves by its name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import libcst as cst

from audits.syntax import dotted_name


@dataclass(frozen=True)
class Binding:
    """`kind` "value": the name is bound to the expression `node`; "each": it runs over the
    iterable `node` (a `for` target); "other": to something that is not a constant."""

    kind: str
    node: cst.CSTNode | None = None


OTHER = Binding("other")


@dataclass
class ModuleBindings:
    path: str
    module: cst.Module
    names: dict[str, list[Binding]] = field(default_factory=lambda: defaultdict(list))
    classes: dict[str, dict[str, list[Binding]]] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)  # "f", "Class.method"
    imported: dict[str, str] = field(default_factory=dict)  # local name -> name in its module

    @classmethod
    def of(cls, path: str, module: cst.Module) -> ModuleBindings:
        bindings = cls(path, module)
        bindings._statements(module.body, None)
        return bindings

    def _statements(self, statements, class_name: str | None) -> None:
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._small(small, class_name)
            elif isinstance(statement, cst.FunctionDef):
                key = f"{class_name}.{statement.name.value}" if class_name else statement.name.value
                self.functions[key] = statement
                self._bind(class_name, statement.name.value, Binding("function", statement))
            elif isinstance(statement, cst.ClassDef):
                self._bind(class_name, statement.name.value, OTHER)
                if class_name is None:
                    self.classes.setdefault(statement.name.value, defaultdict(list))
                    self._statements(block_statements(statement.body), statement.name.value)
            else:
                if isinstance(statement, cst.For):
                    for name in target_names(statement.target):
                        self._bind(class_name, name, Binding("each", statement.iter))
                self._statements(inner_statements(statement), class_name)

    def _small(self, small: cst.BaseSmallStatement, class_name: str | None) -> None:
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            for local, original in imported_names(small):
                self.imported[local] = original
                self._bind(class_name, local, Binding("import", None))
            return
        for name, binding in assigned(small):
            self._bind(class_name, name, binding)

    def _bind(self, class_name: str | None, name: str, binding: Binding) -> None:
        table = self.classes[class_name] if class_name else self.names
        table[name].append(binding)


class ProjectBindings:
    """Every module's bindings, and module-level names and classes across the project by name.

    A module another process parsed is known here by the names it binds (`expect`) and parsed
    here (`load(path)`) only when one of those names is looked up.
    """

    def __init__(self, load: Callable[[str], cst.Module | None] | None = None) -> None:
        self.modules: dict[str, ModuleBindings] = {}
        self._names: dict[str, list[tuple[ModuleBindings, Binding]]] = defaultdict(list)
        self._classes: dict[str, list[ModuleBindings]] = defaultdict(list)
        self._elsewhere: dict[str, list[str]] = defaultdict(list)  # name -> paths not parsed
        self._load = load

    def add(self, path: str, module: cst.Module) -> ModuleBindings:
        bindings = ModuleBindings.of(path, module)
        self.modules[path] = bindings
        for name, found in bindings.names.items():
            self._names[name].extend((bindings, b) for b in found if b.kind != "import")
        for name in bindings.classes:
            self._classes[name].append(bindings)
        return bindings

    def expect(self, path: str, names: Iterable[str]) -> None:
        """The module `path`, parsed elsewhere, binds `names` (`bound_names` of its bindings)."""
        for name in names:
            self._elsewhere[name].append(path)

    def named(self, name: str) -> list[tuple[ModuleBindings, Binding]]:
        """(module, binding) for each module-level binding of `name` in the project."""
        self._load_binders(name)
        return self._names.get(name, [])  # in the order of the modules' paths (see _load_binders)

    def classes_named(self, name: str) -> list[ModuleBindings]:
        self._load_binders(name)
        return self._classes.get(name, [])

    def _load_binders(self, name: str) -> None:
        """Parse the modules elsewhere that bind `name`; keep every list in path order, so that
        however the modules were shared out, a name resolves the same way."""
        paths = self._elsewhere.pop(name, ())
        for path in paths:
            module = None if path in self.modules or self._load is None else self._load(path)
            if module is not None:
                self.add(path, module)
        if paths:
            self._names[name].sort(key=_module_path)
            self._classes[name].sort(key=lambda bindings: bindings.path)


def _module_path(pair: tuple[ModuleBindings, Binding]) -> str:
    return pair[0].path


def bound_names(bindings: ModuleBindings) -> set[str]:
    """What a module contributes to the project's index: names it binds, classes it defines."""
    names = {n for n, found in bindings.names.items() if any(b.kind != "import" for b in found)}
    return names | set(bindings.classes)


def assigned(small: cst.CSTNode):
    """(name, binding) for each name an assignment-like small statement binds."""
    if isinstance(small, cst.Assign):
        for target in small.targets:
            yield from bind_target(target.target, small.value)
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        yield from bind_target(small.target, small.value)
    elif isinstance(small, cst.AugAssign):
        yield from ((name, OTHER) for name in target_names(small.target))


def bind_target(target: cst.BaseExpression, value: cst.BaseExpression):
    if isinstance(target, cst.Name):
        yield target.value, Binding("value", value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        parts = [element.value for element in target.elements]
        values = (
            [element.value for element in value.elements]
            if isinstance(value, (cst.Tuple, cst.List))
            and not any(isinstance(e, cst.StarredElement) for e in value.elements)
            else None
        )
        if values is not None and len(values) == len(parts):
            for part, item in zip(parts, values, strict=True):
                yield from bind_target(part, item)
        else:
            yield from ((name, OTHER) for name in target_names(target))


def target_names(target: cst.CSTNode) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def imported_names(node: cst.Import | cst.ImportFrom):
    """(local name, original name) for each name an import binds (`import a.b` binds `a`)."""
    if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
        return
    for alias in node.names:
        original = dotted_name(alias.name) or ""
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            yield alias.asname.name.value, original.split(".")[-1]
        elif isinstance(node, cst.Import):
            yield original.split(".")[0], original.split(".")[0]
        else:
            yield original, original


def block_statements(suite: cst.BaseSuite) -> list:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=suite.body)]


def inner_statements(statement: cst.CSTNode) -> list:
    """Statements nested in a compound statement's blocks (if/else, try/except/finally, ...)."""
    statements = []
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, cst.BaseSuite):
            statements += block_statements(part)
        elif isinstance(part, (cst.If, cst.Else, cst.Finally)):
            statements += [part] if isinstance(part, cst.If) else inner_statements(part)
    for handler in getattr(statement, "handlers", ()):
        statements += block_statements(handler.body)
    return statements
