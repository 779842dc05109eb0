"""Import rebinding: importing a module of the audited package leaves every other module as it was.

In a fresh process (`python -m audits.behaviour.imports PACKAGE`), a finder on `sys.meta_path`
wraps the execution of every module of the package, however it is reached (the package's own
`__init__` importing the rest included). Around each execution, every loaded module of the
package is snapshotted: its globals, the attributes of the classes it defines, and the entries of
its dicts (registries). A binding of another module that existed before and now holds another
object, or is gone, was changed by that module's import: a finding charged to it (to the innermost
import, when imports nest). New bindings are fine: submodules appear on their package, registries
gain entries. Then the package's remaining modules are imported one at a time, in name order.
"""

from __future__ import annotations

import importlib
import importlib.abc
import json
import pkgutil
import sys
from pathlib import Path

_Snapshot = dict[str, object]


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

    def __init__(self, package: str) -> None:
        self.package = package
        self.findings: list[dict] = []
        self.reported: set[str] = set()

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
            execute(module)
            rebound = [
                key
                for key in changed(before, snapshot(self.package), name)
                if key not in self.reported
            ]
            if rebound:
                self.reported.update(rebound)
                self.findings.append({"module": name, "file": module.__file__, "rebinds": rebound})

        return exec_module


def audit_imports(package: str) -> tuple[list[dict], list[str]]:
    """(findings as dicts: module, file, rebinds; modules that could not be imported)."""
    watch = _Watch(package)
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
    return findings, skipped


def main() -> None:
    package = sys.argv[1]
    sys.path.insert(0, str(Path.cwd()))
    findings, skipped = audit_imports(package)
    print(json.dumps({"findings": findings, "skipped": skipped}))


if __name__ == "__main__":
    main()
