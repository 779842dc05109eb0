"""Rename everything a NineToothed program's author chose, with libcst, into a temporary folder.

Renamed: function names, parameters, assigned and loop variables, helper functions, import
aliases (`from ninetoothed import Tensor` becomes `... import Tensor as <new>`), strings that spell
one of those names or that name a `Symbol` (`Symbol("BLOCK_SIZE")`, `Tensor(0, name="flag")`),
docstrings and comments (fresh text), and the file's own name (so the module's name and path
change too). One map serves a program and the sibling programs it imports from `package`
(`from compiler.suite.programs import matmul as mm`): they are renamed into a fresh package
imported from the temporary folder, so `mm.arrangement` follows. Attributes and keywords of
library calls stay: they are the library's names, not the author's.

New names are `rn<number>x` with random numbers, so the renaming also reorders names; a map back
(`restore_names`) turns the compiler's output into what the original program gives.
"""

from __future__ import annotations

import random
import re
import sys
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

_NEW_NAME = re.compile(r"(?<![A-Za-z0-9])rn(\d+)x(?![A-Za-z0-9])")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_NAMING_CALLS = {"Symbol": 0}  # callee name -> position of the name it is given
_NAMING_KEYWORDS = {"name"}


@dataclass(frozen=True)
class Renamed:
    path: Path  # the renamed program
    mapping: dict[str, str]  # old name -> new name (the file's stem included)
    directory: Path  # the folder that holds it (on sys.path while `importable`)

    def restore(self, text: str) -> str:
        return restore_names(text, self.mapping)


class _Bound(cst.CSTVisitor):
    def __init__(self, package: str) -> None:
        self.package = package
        self.names: set[str] = set()
        self.functions: set[str] = set()  # defined here: their calls' keywords are renamed too
        self.siblings: set[str] = set()  # program modules imported from the package

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

    def visit_Call(self, node: cst.Call) -> None:
        position = _NAMING_CALLS.get(_callee(node))
        for number, arg in enumerate(node.args):
            naming = (arg.keyword is None and number == position) or (
                arg.keyword is not None and arg.keyword.value in _NAMING_KEYWORDS
            )
            text = _string_value(arg.value) if naming else None
            if text is not None and _IDENTIFIER.fullmatch(text):
                self.names.add(text)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None:
            self.names.add(node.asname.name.value)
        elif isinstance(node.name, cst.Name):
            self.names.add(node.name.value)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and _dotted(node.module) == self.package:
            self.siblings.update(alias.name.value for alias in node.names)
            self.names.update(self.siblings)

    def _targets(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, cst.Tuple | cst.List):
            for element in node.elements:
                self._targets(element.value)
        elif isinstance(node, cst.StarredElement):
            self._targets(node.value)


class _Rename(cst.CSTTransformer):
    def __init__(
        self, mapping: dict[str, str], functions: set[str], package: str, new_package: str, rng
    ) -> None:
        self.mapping = mapping
        self.functions = functions
        self.package = package
        self.new_package = new_package
        self.rng = rng
        self.module_aliases: set[str] = set()  # names bound to a renamed sibling program
        self.in_package_import = False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_package_import = node.module is not None and _dotted(node.module) == self.package
        if self.in_package_import:
            for alias in node.names:
                self.module_aliases.add((alias.asname.name if alias.asname else alias.name).value)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.mapping.get(updated.value, updated.value))

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString):
        value = _string_value(original)
        if value in self.mapping:
            return updated.with_changes(value=repr(self.mapping[value]))
        return updated

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.Expr:
        """A docstring (any string statement) becomes fresh text."""
        if isinstance(original.value, cst.SimpleString | cst.ConcatenatedString):
            return updated.with_changes(value=cst.SimpleString(repr(self._fresh_text())))
        return updated

    def leave_Comment(self, original: cst.Comment, updated: cst.Comment) -> cst.Comment:
        keep = original.value.partition("#")[2].strip().startswith(("noqa", "type:", "fmt:"))
        return updated if keep else updated.with_changes(value=f"# {self._fresh_text()}")

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
        if self.in_package_import:  # a sibling program: its file is renamed too
            return updated
        if original.asname is None and isinstance(original.name, cst.Name):
            new = self.mapping.get(original.name.value)
            if new is not None:
                return original.with_changes(asname=cst.AsName(name=cst.Name(new)))
        return updated.with_changes(name=original.name)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        self.in_package_import = False
        if original.module is not None and _dotted(original.module) == self.package:
            return updated.with_changes(module=cst.Name(self.new_package))
        return updated.with_changes(module=original.module)

    def _fresh_text(self) -> str:
        return " ".join(f"w{self.rng.randrange(10**6)}" for _ in range(self.rng.randint(1, 6)))


def _callee(node: cst.Call) -> str:
    func = node.func
    return func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")


def _string_value(node: cst.BaseExpression) -> str | None:
    if not isinstance(node, cst.SimpleString) or node.prefix.lower() not in ("", "r"):
        return None
    return node.raw_value


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return node.value


def rename_program(
    path: Path, directory: Path, *, package: str = "", extra_names=(), seed: int | None = None
) -> Renamed:
    """Write `path` renamed (and the siblings it imports from `package`) under `directory`.
    `extra_names`: more names to map (a kernel name the caller chooses). `seed` makes the new
    names reproducible; a random one otherwise."""
    rng = random.Random(seed)
    new_package = f"renamed_programs_{uuid.UUID(int=rng.getrandbits(128)).hex}"
    modules = {path: cst.parse_module(path.read_text())}
    visitor = _Bound(package)
    modules[path].visit(visitor)
    for sibling in sorted(visitor.siblings):
        sibling_path = path.parent / f"{sibling}.py"
        modules[sibling_path] = cst.parse_module(sibling_path.read_text())
        modules[sibling_path].visit(visitor)
    names = sorted(visitor.names | set(extra_names) | {path.stem} | visitor.siblings)
    numbers = rng.sample(range(10, 10 * len(names) + 10**6), len(names))
    mapping = {name: f"rn{number}x" for name, number in zip(names, numbers, strict=True)}
    (directory / new_package).mkdir()
    (directory / new_package / "__init__.py").write_text("")
    transformer = _Rename(mapping, visitor.functions, package, new_package, rng)
    for source, module in modules.items():
        folder = directory if source == path else directory / new_package
        (folder / f"{mapping[source.stem]}.py").write_text(module.visit(transformer).code)
    return Renamed(directory / f"{mapping[path.stem]}.py", mapping, directory)


def restore_names(text: str, mapping: dict[str, str]) -> str:
    """`text` with every new name (also inside `rn3x_size_0`) replaced by the old one."""
    old = {new: name for name, new in mapping.items()}
    return _NEW_NAME.sub(lambda match: old.get(match.group(0), match.group(0)), text)


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
