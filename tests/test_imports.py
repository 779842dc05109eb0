"""Every module imports on its own, first: no import cycle hides behind a lucky import order."""

import importlib
import pkgutil
import sys

import pytest

import compiler

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(compiler.__path__, "compiler.")
    # programs import `ninetoothed` (bound by their loader); __main__ runs the CLI
    if ".suite.programs" not in info.name and not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_module_imports_first(name):
    saved = {k: v for k, v in sys.modules.items() if k == "compiler" or k.startswith("compiler.")}
    for key in saved:
        del sys.modules[key]
    try:
        importlib.import_module(name)
    finally:
        for key in [k for k in sys.modules if k == "compiler" or k.startswith("compiler.")]:
            del sys.modules[key]
        sys.modules.update(saved)
