"""Rename every identifier a NineToothed program binds, with libcst, into a temporary file.

Bound names are function names, parameters, assigned and loop variables, helper functions and
import aliases (`from ninetoothed import Tensor` becomes `... import Tensor as <new>`). One map
serves a program and the sibling program it imports (`from compiler.suite.programs import matmul
as mm`): the sibling is renamed too, written into a temporary package, and imported from there, so
`mm.arrangement` follows the renaming. Attributes, keywords of library calls and strings stay.
"""

from __future__ import annotations

import re
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import libcst as cst

PROGRAMS_PACKAGE = "compiler.suite.programs"
_NEW_NAME = re.compile(r"(?<![A-Za-z0-9_])rn(\d+)x(?![A-Za-z0-9])")


class _Bound(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.functions: set[str] = set()  # defined here: their calls' keywords are renamed too
        self.siblings: set[str] = set()  # program modules imported from the suite's package

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)
        self.functions.add(node.name.value)

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None:
            self.names.add(node.asname.name.value)
        elif isinstance(node.name, cst.Name):
            self.names.add(node.name.value)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and _dotted(node.module) == PROGRAMS_PACKAGE:
            self.siblings.update(alias.name.value for alias in node.names)

    def _targets(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, cst.Tuple | cst.List):
            for element in node.elements:
                self._targets(element.value)
        elif isinstance(node, cst.StarredElement):
            self._targets(node.value)


class _Rename(cst.CSTTransformer):
    def __init__(self, mapping: dict[str, str], functions: set[str], package: str) -> None:
        self.mapping = mapping
        self.functions = functions
        self.package = package
        self.module_aliases: set[str] = set()  # names bound to a renamed sibling program

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and _dotted(node.module) == PROGRAMS_PACKAGE:
            for alias in node.names:
                self.module_aliases.add((alias.asname.name if alias.asname else alias.name).value)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.mapping.get(updated.value, updated.value))

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        on_sibling = isinstance(original.value, cst.Name) and original.value.value in (
            self.module_aliases
        )
        return updated if on_sibling else updated.with_changes(attr=original.attr)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if isinstance(original.func, cst.Name) and original.func.value in self.functions:
            return updated
        pairs = zip(original.args, updated.args, strict=True)
        args = [new.with_changes(keyword=old.keyword) for old, new in pairs]
        return updated.with_changes(args=args)

    def leave_ImportAlias(self, original: cst.ImportAlias, updated: cst.ImportAlias):
        if original.asname is None and isinstance(original.name, cst.Name):
            new = self.mapping.get(original.name.value)
            if new is not None:
                return original.with_changes(asname=cst.AsName(name=cst.Name(new)))
        return updated.with_changes(name=original.name)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        if original.module is not None and _dotted(original.module) == PROGRAMS_PACKAGE:
            return updated.with_changes(module=cst.Name(self.package))
        return updated.with_changes(module=original.module)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return node.value


def rename_program(path: Path, directory: Path) -> tuple[Path, dict[str, str]]:
    """Write `path` renamed (and the siblings it imports) under `directory`; return the renamed
    file and the map from old names to new ones. New names are `rn<number>x`, numbered in reverse
    alphabetical order of the old ones, so the renaming also reorders names."""
    package = f"renamed_programs_{uuid.uuid4().hex}"
    modules = {path: cst.parse_module(path.read_text())}
    visitor = _Bound()
    modules[path].visit(visitor)
    for sibling in sorted(visitor.siblings):
        sibling_path = path.parent / f"{sibling}.py"
        modules[sibling_path] = cst.parse_module(sibling_path.read_text())
        modules[sibling_path].visit(visitor)
    names = sorted(visitor.names, reverse=True)
    mapping = {name: f"rn{number}x" for number, name in enumerate(names)}
    (directory / package).mkdir()
    (directory / package / "__init__.py").write_text("")
    for source, module in modules.items():
        folder = directory if source == path else directory / package
        (folder / source.name).write_text(
            module.visit(_Rename(mapping, visitor.functions, package)).code
        )
    return directory / path.name, mapping


def restore_names(text: str, mapping: dict[str, str]) -> str:
    """`text` with every new name (also inside `rn3x_size_0`) replaced by the old one."""
    old = {new: name for name, new in mapping.items()}
    return _NEW_NAME.sub(lambda match: old[match.group(0)], text)


@contextmanager
def importable(directory: Path):
    """`directory` on `sys.path`, and its renamed packages forgotten afterwards."""
    sys.path.insert(0, str(directory))
    try:
        yield
    finally:
        sys.path.remove(str(directory))
        for name in [n for n in sys.modules if n.startswith("renamed_programs_")]:
            del sys.modules[name]
