"""Rename all that the authors of NineToothed programs chose, with libcst, into a temporary folder.

The unit is a package folder: a suite's programs folder, or a library such as ntops. Every module of
it is rewritten, with one map for all:

- names: functions, classes, parameters, assigned and loop variables, import aliases (`from
  ninetoothed import Tensor` becomes `... import Tensor as <new>`); not what a class body binds
  (attributes, methods) nor its methods' parameters: they are reached as attributes and
  keywords, so a name bound that way anywhere keeps it throughout the package;
- modules: each file and folder is renamed, the package itself too, and every import of it and
  attribute path through it (`ntops.kernels.add.premake`) follows;
- keywords of calls to the package's own functions, also through `functools.partial`;
- strings that spell one of those names or that name a `Symbol` (`Symbol("BLOCK_SIZE")`,
  `Tensor(0, name="flag")`);
- docstrings and comments become fresh text.

Attributes and keywords of library calls (`x.tile(...)`, `ntl.zeros(..., dtype=...)`) stay: they
are the library's names, not the authors'. New names are `rn<number>x` with random numbers, so the
renaming also reorders names; `Renamed.restore` maps the compiler's output back.
"""

from __future__ import annotations

import random
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

_NEW_NAME = re.compile(r"(?<![A-Za-z0-9])rn(\d+)x(?![A-Za-z0-9])")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_NAMING_CALLS = {"Symbol": 0}  # callee name -> position of the name it is given
_NAMING_KEYWORDS = {"name"}
_PARTIAL = "partial"


@dataclass(frozen=True)
class Renamed:
    folder: Path  # the original package folder
    package: str  # its dotted name
    new_package: str  # the renamed package's (top-level) name
    mapping: dict[str, str]  # old name -> new name
    directory: Path  # holds the renamed package (on sys.path while `importable`)

    def restore(self, text: str) -> str:
        return restore_names(text, self.mapping)

    def file(self, original: Path) -> Path:
        """Where the renamed copy of `original` (a file of the package) is."""
        parts = original.resolve().relative_to(self.folder.resolve()).parts
        renamed = [self.mapping.get(part, part) for part in parts[:-1]]
        stem = Path(parts[-1]).stem
        return self.directory.joinpath(self.new_package, *renamed, self.name(stem) + ".py")

    def module(self, dotted: str) -> str:
        """The renamed dotted name of the package's module `dotted`."""
        rest = dotted.removeprefix(self.package).lstrip(".")
        return ".".join([self.new_package, *(self.name(part) for part in rest.split(".") if part)])

    def name(self, old: str) -> str:
        return self.mapping.get(old, old)


class _Bound(cst.CSTVisitor):
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
        parameters.update(p.name.value for p in _parameters(node.params))

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
                    text = _string_value(element.value)
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
        position = _NAMING_CALLS.get(_callee(node))
        for number, arg in enumerate(node.args):
            naming = (arg.keyword is None and number == position) or (
                arg.keyword is not None and arg.keyword.value in _NAMING_KEYWORDS
            )
            text = _string_value(arg.value) if naming else None
            if text is not None and _IDENTIFIER.fullmatch(text):
                self.names.add(text)
                self.named.add(text)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None:
            self.names.add(node.asname.name.value)
        else:
            self.names.add(_dotted(node.name).partition(".")[0])

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


class _Rename(cst.CSTTransformer):
    def __init__(
        self,
        renamed: Renamed,
        local: set[str],
        functions: set[str],
        modules: set[str],
        named: set[str],
        rng,
    ) -> None:
        self.renamed = renamed
        self.local = local  # what this module binds (other names are builtins or the library's)
        self.functions = functions
        self.named = named
        self.modules = modules  # the stems of the package's modules and folders
        self.rng = rng
        self.package_roots: set[str] = set()  # names bound to the package or its modules
        self.in_package_import = False

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = _dotted(alias.name)
            if self._in_package(dotted):
                bound = alias.asname.name.value if alias.asname else dotted.partition(".")[0]
                self.package_roots.add(bound)

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        names = []
        for old, new in zip(original.names, updated.names, strict=True):
            dotted = _dotted(old.name)
            if self._in_package(dotted):
                new = new.with_changes(name=_dotted_node(self.renamed.module(dotted)))
            names.append(new)
        return updated.with_changes(names=names)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = _dotted(node.module) if node.module is not None else ""
        self.in_package_import = bool(node.relative) or self._in_package(module)
        if self.in_package_import and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.name.value in self.modules:
                    bound = alias.asname.name if alias.asname else alias.name
                    self.package_roots.add(bound.value)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        self.in_package_import = False
        if original.relative:
            if original.module is None:
                return updated
            parts = [self.renamed.name(part) for part in _dotted(original.module).split(".")]
            return updated.with_changes(module=_dotted_node(".".join(parts)))
        module = _dotted(original.module) if original.module is not None else ""
        if self._in_package(module):
            return updated.with_changes(module=_dotted_node(self.renamed.module(module)))
        return updated.with_changes(module=original.module)

    def leave_ImportAlias(self, original: cst.ImportAlias, updated: cst.ImportAlias):
        if self.in_package_import:  # names of the package: renamed with it
            return updated.with_changes(name=cst.Name(self.renamed.name(original.name.value)))
        if self._in_package(_dotted(original.name)):
            return updated  # `import pkg.mod`: leave_Import renames the path
        if original.asname is None and isinstance(original.name, cst.Name):
            new = self.renamed.mapping.get(original.name.value)
            if new is not None:
                return original.with_changes(asname=cst.AsName(name=cst.Name(new)))
        return updated.with_changes(name=original.name)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if original.value not in self.local:
            return updated
        return updated.with_changes(value=self.renamed.name(updated.value))

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString):
        value = _string_value(original)
        if value in self.named:
            return updated.with_changes(value=repr(self.renamed.mapping[value]))
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
        if _root(original) in self.package_roots:  # a path through the package: renamed
            return updated.with_changes(attr=cst.Name(self.renamed.name(original.attr.value)))
        return updated.with_changes(attr=original.attr)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        callee = original.func
        if _callee(original) == _PARTIAL and original.args:
            callee = original.args[0].value
        ours = self._ours(callee)
        args = []
        for old, new in zip(original.args, updated.args, strict=True):
            keyword = old.keyword
            if ours and keyword is not None:  # the callee's parameter, renamed where it is bound
                keyword = cst.Name(self.renamed.name(keyword.value))
            args.append(new.with_changes(keyword=keyword))
        return updated.with_changes(args=args)

    def _ours(self, callee: cst.BaseExpression) -> bool:
        """A function the package defines: its parameters are renamed, so are the keywords."""
        if isinstance(callee, cst.Name):
            return callee.value in self.functions
        return (
            isinstance(callee, cst.Attribute)
            and _root(callee) in self.package_roots
            and callee.attr.value in self.functions
        )

    def _in_package(self, dotted: str) -> bool:
        package = self.renamed.package
        return dotted == package or dotted.startswith(package + ".")

    def _fresh_text(self) -> str:
        return " ".join(f"w{self.rng.randrange(10**6)}" for _ in range(self.rng.randint(1, 6)))


def _parameters(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    keywords = [params.star_kwarg] if params.star_kwarg else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *keywords]


def _callee(node: cst.Call) -> str:
    func = node.func
    return func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def _string_value(node: cst.BaseExpression) -> str | None:
    if not isinstance(node, cst.SimpleString) or node.prefix.lower() not in ("", "r"):
        return None
    return node.raw_value


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return node.value


def _dotted_node(dotted: str) -> cst.Attribute | cst.Name:
    *parents, last = dotted.split(".")
    if not parents:
        return cst.Name(last)
    return cst.Attribute(value=_dotted_node(".".join(parents)), attr=cst.Name(last))


def rename_package(
    folder: Path, package: str, directory: Path, *, extra_names=(), seed: int | None = None
) -> Renamed:
    """Write the package at `folder` (dotted name `package`) renamed under `directory`.
    `extra_names`: more names to map (a kernel name the caller gives). `seed` makes the new names
    reproducible; a random one otherwise."""
    rng = random.Random(seed)
    files = sorted(path for path in folder.rglob("*.py") if "__pycache__" not in path.parts)
    modules = {path: cst.parse_module(path.read_text()) for path in files}
    bound = {path: _Bound() for path in files}
    for path, module in modules.items():
        module.visit(bound[path])
    stems = {path.stem for path in files if path.stem != "__init__"}
    stems |= {part for path in files for part in path.relative_to(folder).parts[:-1]}
    last = package.rpartition(".")[2]
    # Attributes keep their names everywhere: a keyword or a string may reach one from any module.
    kept = set().union(*(b.attributes for b in bound.values())) - stems - {last}
    # A kept function name may be called with keywords: its parameters are kept too.
    parameters: dict[str, set[str]] = {}
    for b in bound.values():
        for function, names in b.parameters.items():
            parameters.setdefault(function, set()).update(names)
    while more := set().union(*(parameters.get(f, set()) for f in kept)) - kept:
        kept |= more
    functions = set().union(*(b.functions for b in bound.values())) - kept
    named = set().union(*(b.named for b in bound.values())) - kept
    names = set().union(*(b.names for b in bound.values())) | set(extra_names)
    names = sorted((names - kept) | stems | {last})
    numbers = rng.sample(range(10, 10 * len(names) + 10**6), len(names))
    mapping = {name: f"rn{number}x" for name, number in zip(names, numbers, strict=True)}
    renamed = Renamed(folder, package, mapping[last], mapping, directory)
    for path, module in modules.items():
        target = renamed.file(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        strings = named | (bound[path].exported - kept)
        transformer = _Rename(renamed, bound[path].names - kept, functions, stems, strings, rng)
        target.write_text(module.visit(transformer).code)
    return renamed


def restore_names(text: str, mapping: dict[str, str]) -> str:
    """`text` with every new name (also inside `rn3x_size_0`) replaced by the old one."""
    old = {new: name for name, new in mapping.items()}
    return _NEW_NAME.sub(lambda match: old.get(match.group(0), match.group(0)), text)


@contextmanager
def importable(renamed: Renamed):
    """The renamed package importable, and forgotten afterwards."""
    sys.path.insert(0, str(renamed.directory))
    try:
        yield
    finally:
        sys.path.remove(str(renamed.directory))
        top = renamed.new_package
        for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
            del sys.modules[name]
