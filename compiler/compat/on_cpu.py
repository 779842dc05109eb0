"""Moving a library written for `device="cuda"` to the CPU as Python imports it.

Libraries and their tests name the device in many places (`device="cuda"`, `x.device.type ==
"cuda"`, `torch.cuda.is_available()` in skip markers). Rather than edit their files, the modules
under the corpus root are compiled from a rewritten syntax tree: the string "cuda" (and "cuda:N")
becomes "cpu", `torch.cuda.is_available()` becomes `True`, and `x.cuda()` becomes `x.cpu()`.
Test modules and conftest files also get pytest's assertion rewriting, so a failed comparison
reports its values as it would under plain pytest. Modules elsewhere are untouched.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path


class _OnCpu(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and (node.value == "cuda" or node.value.startswith("cuda:")):
            return ast.copy_location(ast.Constant("cpu"), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and not node.args and not node.keywords:
            if func.attr == "is_available" and _attribute_name(func.value) == "cuda":
                return ast.copy_location(ast.Constant(True), node)
            if func.attr == "cuda":
                func.attr = "cpu"
        return node


def _attribute_name(node: ast.AST) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else None


def _is_test_module(path: Path) -> bool:
    return path.name == "conftest.py" or (path.name.startswith("test_") and path.suffix == ".py")


class _CpuLoader(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname: str):
        """Always from source: a cached .pyc would be the unrewritten module."""
        path = self.get_filename(fullname)
        source = self.get_data(path)
        tree = ast.fix_missing_locations(_OnCpu().visit(ast.parse(source, path)))
        if _is_test_module(Path(path)):
            from _pytest.assertion.rewrite import rewrite_asserts

            # After fixing locations: pytest's nodes carry a start line only, which compile
            # accepts, while a fixed end line (the module's 1) before a later start would not.
            rewrite_asserts(tree, source, path)
        return compile(tree, path, "exec", dont_inherit=True)


class CpuFinder(importlib.abc.MetaPathFinder):
    """Finds the corpus's modules before any other finder and loads them moved to the CPU."""

    def __init__(self, roots: list[Path]):
        self.roots = [str(r) for r in roots]

    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        if not any(str(spec.origin).startswith(root) for root in self.roots):
            return None
        spec.loader = _CpuLoader(fullname, spec.origin)
        return spec


def install(roots: list[Path]) -> CpuFinder:
    finder = CpuFinder(roots)
    sys.meta_path.insert(0, finder)
    return finder


def load(module_name: str, path: Path):
    """The module `module_name` executed from `path`, moved to the CPU wherever the file lies (a
    rewritten copy of a corpus module)."""
    loader = _CpuLoader(module_name, str(path))
    spec = importlib.util.spec_from_file_location(module_name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
