"""Import a NineToothed program file with ``ninetoothed`` bound to a library of the caller's choice.

The same program file then runs under the real NineToothed or under our re-implementation. While
the file runs, ``sys.modules["ninetoothed"]`` is the given module and ``ninetoothed.<name>`` its
submodules (``bound_modules``). The suite's program modules are dropped from ``sys.modules``
before and after, so a program that imports a sibling (``from compiler.suite.programs import
matmul``) gets a fresh copy of it under the same binding. Each call returns a new module object.
"""

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

PROGRAMS_PACKAGE = "compiler.suite.programs"


def load_program(path: str | Path, ninetoothed_module: ModuleType) -> ModuleType:
    """Execute the program at ``path`` with ``ninetoothed`` bound to ``ninetoothed_module``."""
    path = Path(path)
    bound = bound_modules(ninetoothed_module)
    saved = {name: sys.modules[name] for name in bound if name in sys.modules}

    _drop_program_modules()
    sys.modules.update(bound)
    try:
        spec = importlib.util.spec_from_file_location(f"ntsuite_program_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        _drop_program_modules()
        for name in bound:
            sys.modules.pop(name, None)
        sys.modules.update(saved)

    return module


def bound_modules(ninetoothed_module: ModuleType) -> dict[str, ModuleType]:
    """`sys.modules` entries that make `ninetoothed_module` importable as `ninetoothed`, with its
    submodules: `language` always, and the others `compiler.dsl.SUBMODULES` names where the module
    has them (NineToothed itself imports its own)."""
    names = {"language", *getattr(ninetoothed_module, "SUBMODULES", ())}
    bound = {"ninetoothed": ninetoothed_module}
    for name in sorted(names):
        if isinstance(getattr(ninetoothed_module, name, None), ModuleType):
            bound[f"ninetoothed.{name}"] = getattr(ninetoothed_module, name)
    return bound


def bound_arrangement(arrangement, kwargs: dict):
    """`arrangement` with plain Python values (block sizes, stride) bound to its keyword
    parameters; it keeps the function's name."""
    if not kwargs:
        return arrangement
    bound = functools.partial(arrangement, **kwargs)
    functools.update_wrapper(bound, arrangement)
    return bound


def _drop_program_modules() -> None:
    for name in list(sys.modules):
        if name == PROGRAMS_PACKAGE or name.startswith(f"{PROGRAMS_PACKAGE}."):
            del sys.modules[name]
