"""The tree tells the pipeline: every registered pass sits in its category's folder, a pass's own
helpers serve only it, shared helpers import no pass, and no module under compiler/ takes part in
an import circle (imports inside functions count: they only delay the circle)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import compiler.backends  # noqa: F401 - the backends' own passes register on import
from compiler.passes import all_passes

ROOT = Path(__file__).resolve().parents[2]
PASSES = "compiler.passes"
CATEGORY_FOLDERS = {
    "hardware-independent": "hardware_independent",
    "hardware-dependent": "hardware_dependent",
    "backend-specific": "backend_specific",
}
CATEGORY_FOLDER_PARTS = [[folder] for folder in CATEGORY_FOLDERS.values()]
LONGEST_FILE = 400  # lines; a longer module says why in its opening docstring


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((ROOT / "compiler").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = _modules()


def _imports(module: str) -> set[str]:
    """The compiler modules `module` imports, anywhere in its body, resolved to the deepest
    module that exists (`from a.b import c` is `a.b.c` where that is a module, else `a.b`)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


GRAPH = {module: _imports(module) for module in MODULES}


def _owner(module: str) -> str | None:
    """The pass folder `module` belongs to (`compiler.passes.<category>.<pass>`), if any."""
    parts = module.split(".")
    folder = ".".join(parts[:4])
    if len(parts) >= 4 and parts[:2] == ["compiler", "passes"] and folder in MODULES:
        if parts[2] in CATEGORY_FOLDERS.values() and MODULES[folder].name == "__init__.py":
            return folder
    return None


@pytest.mark.parametrize("cls", all_passes(), ids=lambda cls: cls.name)
def test_each_pass_sits_in_its_categorys_folder(cls):
    module = cls.__module__
    if cls.name.count(".") == 2:  # ssa.<backend>.<name>: the backend's own pass
        backend = cls.name.split(".")[1]
        assert module.startswith(f"compiler.backends.{backend}."), (cls.name, module)
        return
    folder = f"{PASSES}.{CATEGORY_FOLDERS[cls.category]}."
    assert module.startswith(folder), f"{cls.name} ({cls.category}) is defined in {module}"
    stem = cls.name.removeprefix("ssa.")
    assert module.rpartition(".")[2] == stem, f"{cls.name}: its file is named {module}"


def test_each_category_folder_file_is_a_pass_or_in_a_pass_folder():
    passes = {cls.__module__ for cls in all_passes()}
    for module, path in MODULES.items():
        parts = module.split(".")
        if len(parts) < 4 or parts[2] not in CATEGORY_FOLDERS.values():
            continue
        owner = _owner(module)
        if owner is None:
            assert module in passes, f"{path}: not a registered pass; move it to helpers/"
        elif path.name == "__init__.py":
            assert f"{owner}.{parts[3]}" in passes, f"{owner}: no file named after it is a pass"


def test_a_pass_folder_is_read_by_no_other_pass():
    """Within compiler/passes, what a pass's folder holds is imported only from that folder and
    by its category's __init__ (which registers the pass); callers outside the passes (the
    autotuner's users, a target's list of lowered ops) may use it."""
    for module, imported in GRAPH.items():
        if not module.startswith(PASSES + "."):
            continue
        for target in imported:
            owner = _owner(target)
            if owner is None or module == owner or module.startswith(owner + "."):
                continue
            assert module == owner.rpartition(".")[0], (
                f"{module} reaches into {owner}: move what they share to compiler/passes/helpers/"
            )


def test_shared_helpers_import_no_pass():
    for module, imported in GRAPH.items():
        if module.startswith(f"{PASSES}.helpers"):
            reached = [t for t in imported if t.split(".")[2:3] in CATEGORY_FOLDER_PARTS]
            assert not reached, f"{module} imports the passes {reached}"


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_no_import_circle_under_compiler():
    assert _circles(GRAPH) == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_is_longer_than_a_sitting_without_saying_why():
    for path in MODULES.values():
        lines = path.read_text().count("\n")
        if lines > LONGEST_FILE:
            doc = ast.get_docstring(ast.parse(path.read_text())) or ""
            assert "lines" in doc, f"{path}: {lines} lines; split it or say why in its docstring"


def test_modules_are_found_where_python_finds_them():
    assert MODULES["compiler.passes"] == ROOT / "compiler" / "passes" / "__init__.py"
    assert sys.modules["compiler.passes"].__file__ == str(MODULES["compiler.passes"])
