"""Which tests a change affects, for a `pytest` gate with `affected: true`. Of the test files under
the gate's `args`, these run whole: those the change itself adds or edits, those that read a data
file beside them that it adds or edits (a string of the file matches its name:
`"roundtrip*.mlir"` reads `roundtrip_cbrt.mlir`), and those that name one of the gate's
`mentions` (`{OP}`: an existing op changed by the run is named by its tests).
In a file that imports a module the change touches, the tests that reach a name bound by that
import run: directly, through the file's own functions, constants and fixtures, or through their
decorators. In every other file, the tests whose parametrize id is a touched module or a mention
run (`tests/test_imports.py`'s id of a new module). A one-file change runs the tests that use
that file, never a whole folder.

The selection reads imports as written, not what they import in turn: a test that reaches a
changed module only through another module is left to the gates that run programs (the suite,
the traces, the behaviour audits, conformance).
"""

from __future__ import annotations

import ast
import fnmatch
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Selection:
    whole_files: tuple[str, ...]  # test files that run in full
    tests: tuple[str, ...]  # `file::function`: the tests that reach a changed module's names
    ids: tuple[str, ...]  # parametrize ids that select tests in the other files
    roots: tuple[str, ...]  # where the test files were looked for (the gate's paths)

    def why(self) -> str:
        return (
            f"the tests under {', '.join(self.roots)} that import, name or parametrize what the "
            f"change touches: {', '.join(self.ids) or 'nothing'}"
        )


def select(root: Path, args: tuple[str, ...], changed: list[str], mentions: tuple[str, ...]):
    """The `Selection` for a sandbox at `root` whose change touches the paths `changed`."""
    roots = tuple(a for a in args if not a.startswith("-"))
    files = sorted({f for r in roots for f in _test_files(root, r)})
    modules = {_module(p) for p in changed if p.endswith(".py") and _module(p)}
    data = [PurePosixPath(p) for p in changed if not p.endswith(".py")]
    whole, tests = [], []
    for name in files:
        text = (root / name).read_text(encoding="utf-8", errors="replace")
        tree = _parse(text)
        beside = [d.name for d in data if d.parent == PurePosixPath(name).parent]
        if (
            name in changed
            or any(m in text for m in mentions)
            or (tree and beside and _reads(tree, beside))
        ):
            whole.append(name)
            continue
        bound = _bound_names(tree, modules) if tree else set()
        using = _tests_reaching(tree, bound) if bound else []
        tests += [f"{name}::{test}" for test in using]
        if bound and not using:  # the names are used at import time only: the whole file
            whole.append(name)
    return Selection(tuple(whole), tuple(tests), tuple(sorted(modules) + list(mentions)), roots)


def _test_files(root: Path, path: str) -> list[str]:
    target = root / path
    if target.is_file():
        return [path]
    found = target.rglob("test_*.py") if target.is_dir() else []
    return [p.relative_to(root).as_posix() for p in found]


def _module(path: str) -> str:
    """`compiler/ir/registry.py` -> `compiler.ir.registry`; a package's `__init__` is the package.
    Tests are no modules a test imports."""
    parts = PurePosixPath(path).with_suffix("").parts
    if not parts or parts[0] == "tests":
        return ""
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _reads(tree: ast.Module, names: list[str]) -> bool:
    """A string of the file is one of `names` or a glob that matches one."""
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    return any(
        isinstance(s, str) and fnmatch.fnmatchcase(name, s) for s in strings for name in names
    )


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _bound_names(tree: ast.Module, modules: set[str]) -> set[str]:
    """The names a file's imports of `modules` bind: `from a.b import c` binds c when a.b or a.b.c
    is touched; `import a.b as x` binds x, `import a.b` binds a."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if node.module in modules or f"{node.module}.{alias.name}" in modules:
                    bound.add(alias.asname or alias.name)
    return bound


def _tests_reaching(tree: ast.Module, bound: set[str]) -> list[str]:
    """The test functions (methods too) that reach a name of `bound`: in their body, decorators
    or defaults, or through a function, fixture or constant of the file they name."""
    definitions: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            definitions |= {item.name: item for item in node.body if _is_function(item)}
        if _is_function(node) or isinstance(node, ast.ClassDef):
            definitions[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                definitions |= {n.id: node for n in ast.walk(target) if isinstance(n, ast.Name)}
    reaches: dict[str, bool] = {}

    def reaching(name: str) -> bool:
        if name not in reaches:
            reaches[name] = False  # a cycle reaches nothing more
            node = definitions[name]
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if _is_function(node):  # fixtures, by parameter name
                used |= {a.arg for a in node.args.args}
            reaches[name] = bool(used & bound) or any(
                reaching(u) for u in used & definitions.keys() if u != name
            )
        return reaches[name]

    tests = [n for n, node in definitions.items() if n.startswith("test") and _is_function(node)]
    return [name for name in tests if reaching(name)]


def _is_function(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
