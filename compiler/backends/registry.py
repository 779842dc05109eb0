"""The backends by name. A backend is a package `compiler/backends/<name>/` exporting `TARGET`, its
Target record; every such package is found here, so adding a backend adds a folder, not a branch."""

from __future__ import annotations

import importlib
import pkgutil

from compiler.backends.target import Target


def _discover() -> dict[str, Target]:
    package = importlib.import_module("compiler.backends")
    targets = {}
    for module in pkgutil.iter_modules(package.__path__):
        if module.ispkg:
            target = importlib.import_module(f"{package.__name__}.{module.name}").TARGET
            targets[target.name] = target
    return targets


TARGETS: dict[str, Target] = _discover()


def get_target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        known = ", ".join(sorted(TARGETS))
        raise KeyError(f"no backend named {name!r}; known backends: {known}") from None
