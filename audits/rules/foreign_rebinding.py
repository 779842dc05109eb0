"""LWA009: code that rebinds what another module of the project defines: its functions, classes or
methods.

Importing a module must not change another one: `canonicalize.Canonicalize.run = patched` (or
`setattr(...)` on it, or an assignment to an imported function's attributes) makes the registered
pipeline run code its own modules do not show, and changes results from outside. The behavioural
import audit (`python -m audits behaviour --check imports`) sees it happen; this rule sees it
written. The project's modules are those under the configured `paths` (their first folder), packages
at the project's root, and relative imports; configuring a library (`os.environ[...]`, a tool's
settings) is not this rule's business, nor is data: counters, caches, settings.
"""

from __future__ import annotations

import libcst as cst

from audits.rules.base import Rule, RuleInfo
from audits.syntax import dotted_name


class ForeignRebinding(Rule):
    info = RuleInfo(
        code="LWA009",
        name="foreign-rebinding",
        summary="an assignment (or setattr/delattr) to an attribute of an imported module, "
        "class or function: another module's code changed from here",
        fix="change behaviour in the module that owns it (a registered pass, a target record, a "
        "spelling table), never by patching it from elsewhere",
    )
    must_flag = (
        "from compiler.passes import canonicalize\n"
        "canonicalize.Canonicalize.run = lambda self, kernel, ctx: False",
        "import compiler.backends.emitter as emitter\ndef patched(kernel, target):\n"
        "    return ''\nemitter.emit = patched",
        "from compiler.passes.manager import PassManager\n"
        "setattr(PassManager, 'run', lambda self, kernel: [])",
        "from compiler.passes import registry\ndef wrap(run):\n    return run\n"
        "registry._PASSES['ssa.canonicalize'].run = wrap",
    )
    must_pass = (
        "class Emitter:\n    def __init__(self):\n        self.lines = []",
        "def build(kernel):\n    kernel.attrs = {}\n    return kernel",
        "import dataclasses\ndef frozen(obj, value):\n    object.__setattr__(obj, 'x', value)",
        "from compiler.ir import Kernel\ndef rename(kernel: Kernel):\n    kernel.name = 'k'",
        "from compiler.runtime import counters\ndef count():\n    counters.Launches.total += 1",
        "from compiler.runtime.cache import CACHE\ndef keep(key, value):\n    CACHE[key] = value",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self.imported: set[str] = set()  # names bound to the project's own modules and objects
        self.code: set[str] = set()  # names of the functions and classes defined here
        self.imported_any: set[str] = set()  # every imported name
        paths = context.config.paths
        self.packages = {path.strip("./").split("/")[0] for path in paths} - {""}
        self.whole_root = any(path.strip("./") == "" for path in paths)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.code.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.code.add(node.name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._is_code(node.value):
            for target in node.targets:
                self._target(target.target)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            name = (dotted_name(bound) or "").partition(".")[0]
            self.imported_any.add(name)
            if self._ours(dotted_name(alias.name) or ""):
                self.imported.add(name)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module) if node.module is not None else ""
        ours = bool(node.relative) or self._ours(module)
        for alias in node.names:
            name = (alias.asname.name if alias.asname else alias.name).value
            self.imported_any.add(name)
            if ours:
                self.imported.add(name)

    def _ours(self, module: str) -> bool:
        """A module of the project: under a configured path's first folder, or (when the whole
        root is audited) a package or module at the project's root."""
        top = module.partition(".")[0]
        if top in self.packages:
            return True
        root = self.context.config.root
        return (
            bool(top)
            and self.whole_root
            and ((root / top).is_dir() or (root / f"{top}.py").is_file())
        )

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted_name(node.func)
        patches = name == "setattr" and len(node.args) > 2 and self._is_code(node.args[2].value)
        if (patches or name == "delattr") and node.args:
            root = _root(node.args[0].value)
            if root in self.imported:
                self.report(node, f"{name} on imported `{root}`", root)

    def _is_code(self, value: cst.BaseExpression) -> bool:
        """A function or class: a lambda, or a name bound to a `def`, a class or an import
        (counters, caches and settings are data, not code)."""
        if isinstance(value, cst.Lambda):
            return True
        root = _root(value)
        return isinstance(value, cst.Name | cst.Attribute) and (
            root in self.code or root in self.imported_any
        )

    def _target(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Tuple | cst.List):
            for element in node.elements:
                self._target(element.value)
            return
        if isinstance(node, cst.Attribute | cst.Subscript):
            root = _root(node)
            if root in self.imported:
                shown = dotted_name(node) or root
                self.report(node, f"rebinds `{shown}`, which imported `{root}` owns", shown)


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute | cst.Subscript):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""
