"""A corpus library's own modules imported outside its tests, with `ninetoothed` bound to the
library of the caller's choice (this compiler's `compiler.dsl` or NineToothed itself).

Each call imports the library afresh: its modules are dropped from `sys.modules` before and after,
so modules imported under one binding never serve another. The modules keep the `ninetoothed`
they imported, so they go on working once the binding is undone.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from compiler.compat.corpus import Corpus
from compiler.suite.loader import bound_modules


def import_library_module(corpus: Corpus, name: str, ninetoothed_module: ModuleType) -> ModuleType:
    """The module `name` of the corpus's library (e.g. "ntops.kernels") with `ninetoothed` bound
    to `ninetoothed_module` while the library is imported."""
    with library_imports(corpus.import_paths, name.partition(".")[0], ninetoothed_module):
        return importlib.import_module(name)


@contextmanager
def library_imports(
    paths: Sequence[Path], package: str, ninetoothed_module: ModuleType
) -> Iterator[None]:
    """Inside: `paths` first on `sys.path`, `ninetoothed` and its submodules bound to
    `ninetoothed_module`'s (`bound_modules`), and `package` and every module under `paths`
    imported afresh; afterwards those are forgotten and both undone."""
    bound = bound_modules(ninetoothed_module)
    saved_modules = {n: sys.modules[n] for n in bound if n in sys.modules}
    saved_path = list(sys.path)
    _drop(package, paths)
    sys.modules.update(bound)
    sys.path[:0] = [str(p) for p in paths]
    try:
        yield
    finally:
        sys.path[:] = saved_path
        _drop(package, paths)
        for n in bound:
            sys.modules.pop(n, None)
        sys.modules.update(saved_modules)


def _drop(package: str, paths: Sequence[Path]) -> None:
    """Forget `package` and every module loaded from under `paths` (a library the package imports
    keeps the `ninetoothed` it was imported with)."""
    folders = tuple(str(Path(path).resolve()) for path in paths)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if name == package or name.startswith(f"{package}.") or file.startswith(folders):
            del sys.modules[name]
