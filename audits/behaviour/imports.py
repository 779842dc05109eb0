"""Import rebinding: importing a module of the audited package leaves every other module as it was.

In a fresh process (`python -m audits.behaviour.imports PACKAGE`), a finder on `sys.meta_path`
wraps the execution of every module of the package, however it is reached (the package's own
`__init__` importing the rest included). Around each execution, every loaded module of the
package is snapshotted: its globals, the attributes of the classes it defines, and the entries of
its dicts (registries). A binding of another module that existed before and now holds another
object, or is gone, was changed by that module's import: a finding charged to it (to the innermost
import, when imports nest). New bindings are fine: submodules appear on their package, registries
gain entries. Then the package's remaining modules are imported one at a time, in name order.

Around the same executions an audit hook notes every file of the package's folder that a module
opens while it loads, other than Python's own (`.py`, `.pyc`): a table, a template or code kept in
a data file is read where no compile sees it (the purity check hears only what a compile opens).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import pkgutil
import sys
from pathlib import Path

_Snapshot = dict[str, object]
_PYTHON_FILES = frozenset({".py", ".pyc"})


def snapshot(prefix: str) -> _Snapshot:
    """{`module.name`, `module.Class.attr` or `module.name[key]`: object} for loaded modules."""
    held: _Snapshot = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == prefix or module_name.startswith(prefix + ".")):
            continue
        for name, value in list(vars(module).items()):
            held[f"{module_name}.{name}"] = value
            if isinstance(value, type) and value.__module__ == module_name:
                for attr, member in list(vars(value).items()):
                    held[f"{module_name}.{name}.{attr}"] = member
            elif type(value) is dict:
                for key, member in list(value.items()):
                    held[f"{module_name}.{name}[{key!r}]"] = member
    return held


def changed(before: _Snapshot, after: _Snapshot, own: str) -> list[str]:
    """Bindings of `before` that `after` lacks or holds another object in, except the module
    `own`'s (it is the one being executed)."""
    return sorted(
        key
        for key, value in before.items()
        if not key.startswith(own + ".") and (key not in after or after[key] is not value)
    )


class _Watch(importlib.abc.MetaPathFinder):
    """Wraps each module of `package` so that its execution is snapshotted around."""

    def __init__(self, package: str, folder: Path) -> None:
        self.package = package
        self.folder = folder
        self.findings: list[dict] = []
        self.reported: set[str] = set()
        self.loading: list[tuple[str, str]] = []  # (module, file) of the executions under way
        self.opened: list[dict] = []

    def heard(self, event: str, arguments: tuple) -> None:
        """An audit event: a file of the package's folder opened by a module as it loads."""
        if event != "open" or not self.loading or not isinstance(arguments[0], str | Path):
            return
        path = Path(arguments[0]).resolve()
        if path.suffix in _PYTHON_FILES or not path.is_relative_to(self.folder):
            return
        module, file = self.loading[-1]
        self.opened.append({"module": module, "file": file, "path": str(path)})

    def find_spec(self, name, path, target=None):
        if not (name == self.package or name.startswith(self.package + ".")):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader.exec_module = self._watched(name, spec.loader.exec_module)
        return spec

    def _watched(self, name: str, execute):
        def exec_module(module) -> None:
            before = snapshot(self.package)
            self.loading.append((name, module.__file__))
            try:
                execute(module)
            finally:
                self.loading.pop()
            rebound = [
                key
                for key in changed(before, snapshot(self.package), name)
                if key not in self.reported
            ]
            if rebound:
                self.reported.update(rebound)
                self.findings.append({"module": name, "file": module.__file__, "rebinds": rebound})

        return exec_module


def audit_imports(package: str) -> tuple[list[dict], list[dict], list[str]]:
    """(findings as dicts: module, file, rebinds; files opened as modules load: module, file,
    path; modules that could not be imported). Run in a process of its own: an audit hook stays."""
    (folder,) = importlib.util.find_spec(package).submodule_search_locations
    watch = _Watch(package, Path(folder).resolve())
    sys.addaudithook(watch.heard)
    sys.meta_path.insert(0, watch)
    root = importlib.import_module(package)
    findings, skipped = watch.findings, []
    names = sorted(
        info.name
        for info in pkgutil.walk_packages(
            root.__path__, prefix=package + ".", onerror=lambda name: skipped.append(name)
        )
        if not info.name.endswith(".__main__")  # runs a program when imported
    )
    for name in names:
        if name in sys.modules:
            continue  # imported by an earlier module, and watched then
        try:
            importlib.import_module(name)
        except Exception as error:  # an optional dependency missing: say so, audit the rest
            skipped.append(f"{name}: {type(error).__name__}: {error}")
    return findings, watch.opened, skipped


def main() -> None:
    package = sys.argv[1]
    sys.path.insert(0, str(Path.cwd()))
    findings, opened, skipped = audit_imports(package)
    print(json.dumps({"findings": findings, "opened": opened, "skipped": skipped}))


if __name__ == "__main__":
    main()
