"""Purity: lowering reads nothing but its inputs.

While a program compiles, a `sys.addaudithook` hook and a recording environment note every file
opened, directory listed, text compiled or executed, subprocess started and environment variable
read. Each event is charged to the innermost frame of the audited package on the call stack (the
code that asked for it: `compiler/backends/emitter.py:120`). Allowed:

- imports (the import machinery on the stack): what importing may do is the import audit's;
- the front end (`front_end` folders) reading the program's own files (those in its folders),
  which are its input, and parsing text whose every line is a line of them;
- parsing an arithmetic expression (names, integers, `+ - * / % ( ) ,`): a grid attribute of the
  IR, which cannot carry kernel text;
- the environment variables in `ALLOWED_ENVIRONMENT` (none read during lowering today).

Anything else is a finding. `linecache` is emptied first, so source read back through `inspect`
opens its file again and shows up.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ALLOWED_ENVIRONMENT: frozenset[str] = frozenset()
_WATCHED = {
    "open": "opens",
    "os.listdir": "lists",
    "os.scandir": "lists",
    "glob.glob": "lists",
    "compile": "compiles text from",
    "exec": "executes code",
    "subprocess.Popen": "starts a subprocess",
    "os.system": "runs a shell command",
    "os.posix_spawn": "starts a process",
    "os.exec": "replaces the process",
    "os.fork": "forks",
    "ctypes.dlopen": "loads a library",
}
_ARITHMETIC = re.compile(r"[\w\s+\-*/%(),.]*")
_IMPORT_FRAMES = ("<frozen importlib._bootstrap", "importlib/__init__.py")


@dataclass(frozen=True)
class Event:
    path: str  # the audited file that asked (relative to the root)
    line: int
    what: str  # "opens /x/y.txt", "reads the environment variable HOME"


@dataclass
class _Recording:
    root: Path
    package: Path
    front_end: tuple[Path, ...]
    program_folders: tuple[Path, ...]
    program_lines: frozenset[str]  # read before recording starts
    events: list[Event]


_active: _Recording | None = None
_lock = threading.Lock()
_installed = False


@contextmanager
def recording(root: Path, package: str, front_end: tuple[str, ...], program_folders=()):
    """Record what code under `root/package` asks for while the block runs; yields the list of
    `Event`s (filled as they happen). `front_end`: folders (relative to `root`) that may read and
    parse the files in `program_folders`."""
    global _active, _installed
    with _lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True
        linecache.clearcache()
        state = _Recording(
            root.resolve(),
            (root / package).resolve(),
            tuple((root / folder).resolve() for folder in front_end),
            tuple(Path(folder).resolve() for folder in program_folders),
            frozenset(
                line.strip()
                for folder in program_folders
                for path in Path(folder).glob("*.py")
                for line in path.read_text().splitlines()
            ),
            [],
        )
        original_getitem = os._Environ.__getitem__

        def getitem(environ, key):
            _note(f"reads the environment variable {key}", key)
            return original_getitem(environ, key)

        os._Environ.__getitem__ = getitem
        _active = state
    try:
        yield state.events
    finally:
        with _lock:
            _active = None
            os._Environ.__getitem__ = original_getitem


def _hook(event: str, arguments: tuple) -> None:
    if _active is None or event not in _WATCHED:
        return
    subject = arguments[0] if arguments else ""
    if event == "open" and subject is None:  # a file descriptor, not a path
        return
    if event == "compile":
        if isinstance(subject, bytes):
            subject = subject.decode("utf-8", "replace")
        if isinstance(subject, str) and _ARITHMETIC.fullmatch(subject):
            return
        filename = arguments[1] if len(arguments) > 1 else ""
        _note(f"compiles text from {filename}", subject, event)
        return
    if event == "exec":
        subject = getattr(subject, "co_filename", "")
    _note(f"{_WATCHED[event]} {subject}".rstrip(), subject, event)


def _note(what: str, subject, event: str = "environ") -> None:
    state = _active
    if state is None:
        return
    frame = sys._getframe(2)
    charged = None
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(_IMPORT_FRAMES) or "importlib/_bootstrap" in filename:
            return
        if charged is None and filename.startswith(str(state.package)):
            charged = frame
        frame = frame.f_back
    if charged is None:
        return  # not asked for by the audited package (the audit itself, a test)
    where = Path(charged.f_code.co_filename)
    if _allowed(state, where, event, subject):
        return
    relative = where.relative_to(state.root).as_posix()
    state.events.append(Event(relative, charged.f_lineno, what))


def _allowed(state: _Recording, where: Path, event: str, subject) -> bool:
    if event == "environ":
        return subject in ALLOWED_ENVIRONMENT
    if not any(where.is_relative_to(folder) for folder in state.front_end):
        return False
    if event == "compile":
        return isinstance(subject, str) and _in_program(state, subject)
    return event == "open" and _program_file(state, str(subject))


def _program_file(state: _Recording, path: str) -> bool:
    resolved = Path(path).resolve()
    return resolved.suffix == ".py" and any(
        resolved.parent == folder for folder in state.program_folders
    )


def _in_program(state: _Recording, text: str) -> bool:
    """Every line of `text` is a line of one of the program's files."""
    return all(line.strip() in state.program_lines for line in text.splitlines())
