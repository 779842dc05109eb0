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
import tempfile
from pathlib import Path
from types import ModuleType


def cache_dir() -> Path:
    return Path(os.environ.get("NTC_CACHE_DIR") or Path.home() / ".cache" / "ntc")


def source_file(source: str) -> Path:
    """The cached file holding `source`, written (atomically) if it is not there yet."""
    directory = cache_dir()
    path = directory / f"{hashlib.sha256(source.encode()).hexdigest()}.py"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=directory, suffix=".tmp", delete=False) as f:
            f.write(source)
        os.replace(f.name, path)
    return path


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
