"""The `search` tool: lines of the repository's text files that match a regular expression.

What a model reads, not what a machine holds: recorded runs (`transcripts/`, whose lines are whole
JSON requests), build and cache folders, lock files and files over `MAX_FILE_BYTES` are skipped;
a file shows at most `HITS_PER_FILE` matches and a line at most `LINE_CHARS` characters; after
`MAX_HITS` shown matches the rest are only counted. The last line says how many matches and files
there were in all.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

# Folders of built or cached things, hidden from listings too.
CACHE_DIRS = frozenset(
    {
        ".git",
        ".venv",
        ".venv-tvm",
        "__pycache__",
        ".pytest_cache",
        ".ruff_cache",
        ".mypy_cache",
        ".hypothesis",
        ".ntc-cache",
        ".tox",
        "node_modules",
        "build",
        "dist",
    }
)
RECORDED_RUNS = "transcripts"  # listed when a task keeps them, never searched
LOCK_FILES = frozenset({"package-lock.json", "pnpm-lock.yaml", "yarn.lock"})
MAX_FILE_BYTES = 200_000
HITS_PER_FILE = 8
MAX_HITS = 120
LINE_CHARS = 240
SKIPPED = (
    "skipped: transcripts/, build and cache folders, lock files, "
    f"files over {MAX_FILE_BYTES // 1000} KB"
)


def cache_dir(name: str) -> bool:
    return name in CACHE_DIRS or name.endswith(".egg-info")


@dataclass
class _Tally:
    lines: list[str] = field(default_factory=list)
    shown: int = 0  # matches listed
    listed: int = 0  # files with a match listed
    matches: int = 0
    files: int = 0


def search(root: Path, start: Path, pattern: str) -> str:
    """The matches of `pattern` (a Python regular expression) in the folder or file `start` of
    `root`, as `path:line: text`, and the totals; `re.error` for a pattern that does not compile."""
    regex = re.compile(pattern)
    tally = _Tally()
    for path in _files(start):
        found = [(n, line) for n, line in enumerate(_text_lines(path), 1) if regex.search(line)]
        if found:
            _add(tally, path.relative_to(root).as_posix(), found)
    if not tally.matches:
        return f"no match ({SKIPPED})"
    if tally.files > tally.listed:
        hidden = tally.matches - tally.shown
        tally.lines.append(
            f"... {hidden} more matches in {tally.files - tally.listed} more files: narrow the "
            "pattern or the path"
        )
    files = f"{tally.files} file{'' if tally.files == 1 else 's'}"
    tally.lines.append(f"{tally.matches} matches in {files} ({SKIPPED})")
    return "\n".join(tally.lines)


def _add(tally: _Tally, relative: str, found: list[tuple[int, str]]) -> None:
    tally.files += 1
    tally.matches += len(found)
    room = min(HITS_PER_FILE, MAX_HITS - tally.shown)
    if room <= 0:
        return
    tally.listed += 1
    for number, line in found[:room]:
        text = line.strip()
        if len(text) > LINE_CHARS:
            text = text[:LINE_CHARS] + f" ... ({len(text)} characters)"
        tally.lines.append(f"{relative}:{number}: {text}")
    tally.shown += min(room, len(found))
    if len(found) > room:
        tally.lines.append(f"{relative}: {len(found) - room} more in this file")


def _files(start: Path):
    """The text files to search under `start`, in a stable order; links are not followed (a link
    may lead outside; its target is searched where it lives)."""
    if start.is_file():
        yield start
        return
    for folder, dirs, files in os.walk(start):
        dirs[:] = sorted(d for d in dirs if not cache_dir(d) and d != RECORDED_RUNS)
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_symlink() or name in LOCK_FILES or name.endswith(".lock"):
                continue
            if path.stat().st_size <= MAX_FILE_BYTES:
                yield path


def _text_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError):
        return []  # binary or unreadable
