"""Where a compatibility corpus is and how it is made ready to import.

A corpus is a NineToothed library with its own pytest suite: a folder holding `tests/` (and usually
`src/`), or a tarball of one. Tarballs unpack once into the build cache, keyed by their content, so
the corpus is read where it lies and never copied into the project.
"""

from __future__ import annotations

import hashlib
import tarfile
from dataclasses import dataclass
from pathlib import Path

from compiler.errors import CompileError
from compiler.runtime.cache import cache_dir

PROJECT = Path(__file__).resolve().parents[2]
# Where this workplace keeps the corpora (next to the project), newest name last.
DEFAULT_PATTERN = "ntops-*.tar.gz"
# The column run with NineToothed itself instead of a backend of this compiler.
REFERENCE = "reference"


@dataclass(frozen=True)
class Corpus:
    name: str  # e.g. "ntops-9ae4166"
    root: Path  # the folder holding tests/
    origin: Path  # what the user named: the tarball or the folder

    @property
    def import_paths(self) -> list[Path]:
        """What goes on sys.path: the root (its tests import `tests.utils`) and `src/` if any."""
        return [self.root, *([self.root / "src"] if (self.root / "src").is_dir() else [])]


def default_corpus(pattern: str = DEFAULT_PATTERN) -> Path | None:
    """The newest tarball matching `pattern` (default: ntops) in `../shared/corpora` next to the
    project, if there is one."""
    folder = PROJECT.parent / "shared" / "corpora"
    found = sorted(folder.glob(pattern)) if folder.is_dir() else []
    return found[-1] if found else None


def prepare(path: Path | str) -> Corpus:
    """The corpus at `path` (a folder or a .tar.gz), unpacked if need be."""
    origin = Path(path).resolve()
    if origin.is_dir():
        return Corpus(origin.name, _library_root(origin, origin), origin)
    if not origin.is_file() or not tarfile.is_tarfile(origin):
        raise CompileError(
            f"corpus {path}: not a folder or a tarball; give CORPUS=DIR (a library with tests/) "
            "or CORPUS=FILE.tar.gz"
        )
    name = origin.name.removesuffix(".gz").removesuffix(".tar")
    digest = hashlib.sha256(origin.read_bytes()).hexdigest()[:12]
    target = cache_dir() / "compat" / f"{name}-{digest}"
    done = target / ".unpacked"
    if not done.exists():
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(origin) as archive:
            archive.extractall(target, filter="data")
        done.touch()
    return Corpus(name, _library_root(target, origin), origin)


def _library_root(folder: Path, origin: Path) -> Path:
    """The folder with `tests/`: `folder` itself or its one top-level directory."""
    if (folder / "tests").is_dir():
        return folder
    children = [c for c in folder.iterdir() if c.is_dir() and (c / "tests").is_dir()]
    if len(children) != 1:
        raise CompileError(
            f"corpus {origin}: found no single library folder with a tests/ directory in it; "
            "point CORPUS at the library's own folder"
        )
    return children[0]
