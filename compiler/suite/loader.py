"""Import a NineToothed program file with ``ninetoothed`` bound to a library of the caller's choice.

The same program file then runs under the real NineToothed or under our re-implementation. While
the file runs, ``sys.modules["ninetoothed"]`` and ``sys.modules["ninetoothed.language"]`` are the
given module and its ``language``. The suite's program modules are dropped from ``sys.modules``
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
    bound = {"ninetoothed": ninetoothed_module, "ninetoothed.language": ninetoothed_module.language}
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
