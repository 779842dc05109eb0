"""Cache files sealed with their digest, so that a file found damaged (cut short by a full disk or
a killed copy, overwritten) is built again rather than loaded: a cut shared library crashes the
process that loads it. Standard library only: the TVM worker loads this file by its path too.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def intact(path: str | os.PathLike) -> bool:
    """Whether `path` is there with the digest it was sealed with."""
    try:
        return _seal(path).read_text() == _digest(path)
    except OSError:
        return False


def replace_sealed(temporary: str | os.PathLike, path: str | os.PathLike) -> None:
    """Moves the finished file `temporary` to `path` (atomically) and seals it there. A reader
    between the two steps finds the seal wrong and builds again: the cost of a race, not harm."""
    digest = _digest(temporary)
    os.replace(temporary, path)
    write_atomically(_seal(path), digest)


def write_atomically(path: Path, text: str) -> None:
    """`text` into `path` by a temporary file renamed: a reader sees all of it or none."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as f:
        f.write(text)
    os.replace(f.name, path)


def _seal(path: str | os.PathLike) -> Path:
    return Path(f"{os.fspath(path)}.sha256")


def _digest(path: str | os.PathLike) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
