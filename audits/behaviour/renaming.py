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

from audits.behaviour.bindings import Bindings, callee_name, dotted_name, string_value

_NEW_NAME = re.compile(r"(?<![A-Za-z0-9])rn(\d+)x(?![A-Za-z0-9])")
_PARTIAL = "partial"


@dataclass(frozen=True)
class Renamed:
    folder: Path  # the original package folder
    package: str  # its dotted name
    new_package: str  # the renamed package's (top-level) name
    mapping: dict[str, str]  # old name -> new name
    directory: Path  # holds the renamed package (on sys.path while `importable`)
    others: tuple[tuple[Path, str], ...] = ()  # (folder, name) of top-level packages renamed too

    @property
    def packages(self) -> tuple[tuple[Path, str], ...]:
        return ((self.folder, self.package), *self.others)

    def restore(self, text: str) -> str:
        return restore_names(text, self.mapping)

    def file(self, original: Path) -> Path:
        """Where the renamed copy of `original` (a file of one of the packages) is."""
        resolved = original.resolve()
        folder, package = next(
            (f, p) for f, p in self.packages if resolved.is_relative_to(f.resolve())
        )
        parts = resolved.relative_to(folder.resolve()).parts
        renamed = [self.mapping.get(part, part) for part in parts[:-1]]
        stem = Path(parts[-1]).stem
        top = self.name(package.rpartition(".")[2])
        return self.directory.joinpath(top, *renamed, self.name(stem) + ".py")

    def module(self, dotted: str) -> str:
        """The renamed dotted name of the packages' module `dotted`."""
        package = self.holding(dotted)
        rest = dotted.removeprefix(package).lstrip(".")
        top = self.name(package.rpartition(".")[2])
        return ".".join([top, *(self.name(part) for part in rest.split(".") if part)])

    def holding(self, dotted: str) -> str | None:
        """The package whose module `dotted` is, if one of these."""
        for _, package in self.packages:
            if dotted == package or dotted.startswith(package + "."):
                return package
        return None

    def name(self, old: str) -> str:
        return self.mapping.get(old, old)


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
        self.function_aliases: set[str] = set()  # `from pkg.mod import f as g`: g, f the package's
        self.in_package_import = False

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = dotted_name(alias.name)
            if self._in_package(dotted):
                bound = alias.asname.name.value if alias.asname else dotted.partition(".")[0]
                self.package_roots.add(bound)

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        names = []
        for old, new in zip(original.names, updated.names, strict=True):
            dotted = dotted_name(old.name)
            if self._in_package(dotted):
                new = new.with_changes(name=_dotted_node(self.renamed.module(dotted)))
            names.append(new)
        return updated.with_changes(names=names)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None else ""
        self.in_package_import = bool(node.relative) or self._in_package(module)
        if self.in_package_import and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                bound = alias.asname.name if alias.asname else alias.name
                if alias.name.value in self.modules:  # a module (a name may be both)
                    self.package_roots.add(bound.value)
                if alias.name.value in self.functions:
                    self.function_aliases.add(bound.value)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        self.in_package_import = False
        if original.relative:
            if original.module is None:
                return updated
            parts = [self.renamed.name(part) for part in dotted_name(original.module).split(".")]
            return updated.with_changes(module=_dotted_node(".".join(parts)))
        module = dotted_name(original.module) if original.module is not None else ""
        if self._in_package(module):
            return updated.with_changes(module=_dotted_node(self.renamed.module(module)))
        return updated.with_changes(module=original.module)

    def leave_ImportAlias(self, original: cst.ImportAlias, updated: cst.ImportAlias):
        if self.in_package_import:  # names of the package: renamed with it
            return updated.with_changes(name=cst.Name(self.renamed.name(original.name.value)))
        if self._in_package(dotted_name(original.name)):
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
        value = string_value(original)
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
        if callee_name(original) == _PARTIAL and original.args:
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
            return callee.value in self.functions or callee.value in self.function_aliases
        return (
            isinstance(callee, cst.Attribute)
            and _root(callee) in self.package_roots
            and callee.attr.value in self.functions
        )

    def _in_package(self, dotted: str) -> bool:
        return self.renamed.holding(dotted) is not None

    def _fresh_text(self) -> str:
        return " ".join(f"w{self.rng.randrange(10**6)}" for _ in range(self.rng.randint(1, 6)))


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def _dotted_node(dotted: str) -> cst.Attribute | cst.Name:
    *parents, last = dotted.split(".")
    if not parents:
        return cst.Name(last)
    return cst.Attribute(value=_dotted_node(".".join(parents)), attr=cst.Name(last))


def rename_package(
    folder: Path,
    package: str,
    directory: Path,
    *,
    extra_names=(),
    seed: int | None = None,
    others: tuple[tuple[Path, str], ...] = (),
) -> Renamed:
    """Write the package at `folder` (dotted name `package`) renamed under `directory`.
    `extra_names`: more names to map (a kernel name the caller gives). `seed` makes the new names
    reproducible; a random one otherwise. `others`: (folder, name) of more top-level packages
    renamed with it, with the same map (a corpus's library beside its tests)."""
    rng = random.Random(seed)
    packages = ((folder, package), *others)
    owner = {}
    for root, _ in packages:
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" not in path.parts:
                owner[path] = root
    modules = {path: cst.parse_module(path.read_text()) for path in owner}
    bound = {path: Bindings() for path in owner}
    for path, module in modules.items():
        module.visit(bound[path])
    stems = {path.stem for path in owner if path.stem != "__init__"}
    stems |= {part for path, root in owner.items() for part in path.relative_to(root).parts[:-1]}
    tops = {name.rpartition(".")[2] for _, name in packages}
    # Attributes keep their names everywhere: a keyword or a string may reach one from any module.
    kept = set().union(*(b.attributes for b in bound.values())) - stems - tops
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
    names = sorted((names - kept) | stems | tops)
    numbers = rng.sample(range(10, 10 * len(names) + 10**6), len(names))
    mapping = {name: f"rn{number}x" for name, number in zip(names, numbers, strict=True)}
    last = package.rpartition(".")[2]
    renamed = Renamed(folder, package, mapping[last], mapping, directory, tuple(others))
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
    """The renamed packages importable, and forgotten afterwards."""
    sys.path.insert(0, str(renamed.directory))
    try:
        yield
    finally:
        sys.path.remove(str(renamed.directory))
        tops = {renamed.name(package.rpartition(".")[2]) for _, package in renamed.packages}
        for name in [n for n in sys.modules if n.partition(".")[0] in tops]:
            del sys.modules[name]
