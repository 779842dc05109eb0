"""Which tests a change affects, for a `pytest` gate with `affected: true`: of the test files under
the gate's `args`, those that import a module the change touches (by name, as the file spells its
imports), those the change itself adds or edits, those next to a data file it adds or edits (a
`roundtrip_*.mlir` beside the test that reads it), and those that name one of the gate's
`mentions` (`{OP}`: an existing op changed by the run is named by its tests). In every other test
file, the tests whose parametrize id is a touched module or a mention run
(`tests/test_imports.py`'s id of a new module). A one-file change runs the tests of that file,
never a whole folder.

The selection reads imports as written, not what they import in turn: a test that reaches a
changed module only through another module is left to the gates that run programs (the suite,
the traces, the behaviour audits, conformance).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Selection:
    whole_files: tuple[str, ...]  # test files that run in full
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
    data_folders = {str(PurePosixPath(p).parent) for p in changed if not p.endswith(".py")}
    whole = []
    for name in files:
        text = (root / name).read_text(encoding="utf-8", errors="replace")
        if (
            name in changed
            or str(PurePosixPath(name).parent) in data_folders
            or any(m in text for m in mentions)
            or not modules.isdisjoint(_imports(text))
        ):
            whole.append(name)
    return Selection(tuple(whole), tuple(sorted(modules) + list(mentions)), roots)


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


def _imports(text: str) -> set[str]:
    """Every module a file names in its imports: `from a.b import c` names `a.b` and `a.b.c`."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names
