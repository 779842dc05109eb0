"""A content-addressed cache of emitted sources, imported as modules.

Triton's `@triton.jit` reads a kernel's text with `inspect.getsource`, so the source must live in a
real file: `<cache dir>/<sha256 of the source>.py`. The directory is `$NTC_CACHE_DIR`, else
`~/.cache/ntc`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from compiler.runtime.sealed import write_atomically


class CacheError(OSError):
    """The cache directory cannot hold a file; names it, how it was chosen and the fix."""


def cache_dir() -> Path:
    """Absolute: the TVM worker, which reads its files, does not follow the caller's `chdir`."""
    return Path(os.environ.get("NTC_CACHE_DIR") or Path.home() / ".cache" / "ntc").absolute()


def ensure_dir(directory: Path) -> Path:
    """`directory` made if need be, or a CacheError naming $NTC_CACHE_DIR."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _unwritable(directory, error) from None
    return directory


def _unwritable(directory: Path, error: OSError) -> CacheError:
    chosen = "$NTC_CACHE_DIR" if os.environ.get("NTC_CACHE_DIR") else "the default"
    return CacheError(
        f"the kernel cache {directory} ({chosen}) cannot be written: {error.strerror or error}; "
        "set NTC_CACHE_DIR to a directory this user may write"
    )


def source_file(source: str) -> Path:
    """The cached file holding `source`, written (atomically) if it is not there yet or no longer
    holds it (its name is its digest: a file cut short would import as a kernel cut short)."""
    directory = cache_dir()
    path = directory / f"{hashlib.sha256(source.encode()).hexdigest()}.py"
    if not _holds(path, source):
        ensure_dir(directory)
        try:
            write_atomically(path, source)
        except OSError as error:
            raise _unwritable(directory, error) from None
    return path


def _holds(path: Path, source: str) -> bool:
    try:
        return path.read_text() == source
    except (OSError, UnicodeDecodeError):
        return False


def load_module(source: str, variant: str = "") -> ModuleType:
    """`source` imported as a module, once per process and `variant` (e.g. how Triton runs)."""
    path = source_file(source)
    name = f"ntc_{path.stem}{'_' + variant if variant else ''}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]
