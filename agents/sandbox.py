"""The sandbox a run works in: one commit of the user's repository, fetched into a fresh folder
with that commit as its only history, so no earlier state of the tree is in its git objects.

Tools reach files only through `Sandbox.path`, which refuses absolute paths, `..` and symlinks
that lead outside, `.git`, and (for writes) the protected prefixes: `audits/`, `tests/`,
`agents/`, `pyproject.toml` (it configures the audit) and the audit baseline, unless the task
allows them; a task's `writable` globs let a model add new files there (its own tests), never
change one the commit has. Commands run with a timeout, each in a process group of its own,
recorded while it runs (`agents/in_flight.py`), so that a resumed run can end one that a killed
workflow left. The user's checkout is only read (by `git fetch`); its uncommitted changes are not
in the sandbox.
`EARLIER_RUNS` are what a run takes out of the tree before it starts (see `agents/run.py`), so a
model cannot copy an earlier run's answer. `.venv` is a link to the environment the workflow runs
in, so that the skills' `.venv/bin/...` commands and scripts run in the sandbox as in a checkout;
the sandbox's own git ignores it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agents.errors import AgentError
from agents.in_flight import InFlight

PROTECTED = ("audits/", "tests/", "agents/", "pyproject.toml")
EARLIER_RUNS = ("transcripts", "evals/results")  # recorded agent runs and sweeps
VENV = ".venv"
SCRATCH = "scratch"  # a task's proof programs (`agents/commands.py`)
GIT_TIMEOUT = 120.0
AUTHOR = ["-c", "user.name=ntc-agent", "-c", "user.email=ntc-agent@localhost"]


class Refused(Exception):
    """A tool asked for a path the sandbox does not give; the message says why and what to do."""


@dataclass(frozen=True)
class Completed:
    returncode: int | None  # None when the command timed out
    stdout: str
    stderr: str
    seconds: float


class Sandbox:
    def __init__(
        self, root: Path, base: str, protected: tuple[str, ...], new_files: tuple[str, ...] = ()
    ):
        self.root = root.resolve()
        self.base = base  # the commit the run's changes are diffed against
        self.protected = protected
        self.new_files = new_files  # globs of protected paths a model may create
        self.in_flight = InFlight(None)  # a run records its commands: see agents/run.py

    @classmethod
    def create(
        cls,
        repo: Path,
        folder: Path,
        commit: str,
        allow: tuple[str, ...],
        new_files: tuple[str, ...] = (),
    ) -> Sandbox:
        if folder.exists():
            raise AgentError(f"{folder} exists already; give the run another id")
        sha = _git(repo, "rev-parse", "--verify", f"{commit}^{{commit}}").strip()
        folder.mkdir(parents=True)
        _git(folder, "init", "--quiet")
        source = repo.resolve().as_uri()
        _git(folder, "fetch", "--quiet", "--no-tags", "--depth", "1", source, sha)
        _git(folder, "checkout", "--quiet", "--detach", sha)
        (folder / VENV).symlink_to(sys.prefix, target_is_directory=True)
        with (folder / ".git" / "info" / "exclude").open("a", encoding="utf-8") as exclude:
            exclude.write(f"/{VENV}\n/{SCRATCH}\n")  # neither is part of the change
        return cls.open(folder, allow, new_files)

    @classmethod
    def open(cls, folder: Path, allow: tuple[str, ...], new_files: tuple[str, ...] = ()) -> Sandbox:
        base = _git(folder, "rev-parse", "HEAD").strip()
        protected = tuple(p for p in (*PROTECTED, *_baseline(folder)) if p not in allow)
        return cls(folder, base, protected, new_files)

    def path(self, relative: object, *, write: bool = False) -> Path:
        """The absolute path of `relative` inside the sandbox; `Refused` if it may not be used."""
        if not isinstance(relative, str) or not relative.strip() or "\0" in relative:
            raise Refused(
                "give a path relative to the repository root, e.g. compiler/cli/commands.py"
            )
        lexical = PurePosixPath(relative.strip())
        if lexical.is_absolute():
            raise Refused(f"{relative}: absolute paths are refused; give it relative to the root")
        resolved = (self.root / lexical).resolve()
        if not resolved.is_relative_to(self.root):
            raise Refused(f"{relative}: leads outside the sandbox (.. or a symlink); refused")
        inside = resolved.relative_to(self.root).as_posix()
        for name in {lexical.as_posix().removeprefix("./"), inside}:
            if name == ".git" or name.startswith(".git/"):
                raise Refused(f"{relative}: .git is not a file of the project; refused")
            if write and self._protected(name) and not self._new_file_allowed(name):
                raise Refused(
                    f"{relative}: {self._protected(name)} is protected in this task (the gates "
                    "must judge the change, not be changed by it); change the code instead"
                    + self._new_file_hint(name)
                )
        return resolved

    def _new_file_allowed(self, name: str) -> bool:
        """A new file (one the base commit lacks) at a path of the task's `writable` globs."""
        if not any(_matches(name, glob) for glob in self.new_files):
            return False
        tracked = subprocess.run(
            ["git", "cat-file", "-e", f"{self.base}:{name}"], cwd=self.root, capture_output=True
        )
        return tracked.returncode != 0

    def added_files(self) -> list[str]:
        """The files the run created at the task's `writable` globs, sorted."""
        listing = _git(self.root, "status", "--porcelain", "--untracked-files=all")
        names = [line[3:] for line in listing.splitlines() if line[:2] in ("??", "A ")]
        return sorted(n for n in names if any(_matches(n, glob) for glob in self.new_files))

    def _new_file_hint(self, name: str) -> str:
        if not self.new_files:
            return ""
        return (
            f"; this task lets you add new files (not change existing ones) at: "
            f"{', '.join(self.new_files)}"
        )

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix()

    def _protected(self, name: str) -> str | None:
        for prefix in self.protected:
            if name == prefix.rstrip("/") or (prefix.endswith("/") and name.startswith(prefix)):
                return prefix
        return None

    def run(
        self, argv: list[str], timeout: float, env: dict[str, str], *, merged: bool = False
    ) -> Completed:
        """Run `argv` in the sandbox; `merged` puts stderr into stdout, in the order written.

        The command gets a process group of its own, so that a timeout (or an exception here)
        ends what it started too: `make test` leaves no pytest running behind it. The group is
        recorded while it runs (`in_flight`), for a resume after the workflow was killed."""
        start = time.monotonic()
        stderr = subprocess.STDOUT if merged else subprocess.PIPE
        with (
            self.in_flight.running(argv) as started,
            subprocess.Popen(
                argv,
                cwd=self.root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                errors="replace",
                start_new_session=True,
            ) as process,
        ):
            try:
                started(process.pid)
                out, err = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                out, err = process.communicate()
                return Completed(None, out, err or "", time.monotonic() - start)
            except BaseException:
                _kill_group(process)
                raise
        return Completed(process.returncode, out, err or "", time.monotonic() - start)

    def remove(self, paths: tuple[str, ...]) -> list[str]:
        """Delete those of `paths` (files or folders) that exist; the ones deleted."""
        removed = []
        for relative in paths:
            target = self.root / relative
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.exists() or target.is_symlink():
                target.unlink()
            else:
                continue
            removed.append(relative)
        return removed

    def changed_files(self) -> list[str]:
        """Paths added, modified or deleted since `base`, untracked files included."""
        _git(self.root, "add", "--all")
        listing = _git(self.root, "diff", "--cached", "--name-only", self.base)
        return [line for line in listing.splitlines() if line]

    def diff(self) -> str:
        _git(self.root, "add", "--all")
        return _git(self.root, "diff", "--cached", "--binary", self.base)

    def diff_stat(self) -> str:
        _git(self.root, "add", "--all")
        return _git(self.root, "diff", "--cached", "--stat", self.base)

    def commit(self, message: str, branch: str | None = None) -> str:
        """Commit everything; on `branch` when given (created at the current commit)."""
        if branch:
            _git(self.root, "checkout", "--quiet", "-B", branch)
        _git(self.root, "add", "--all")
        _git(self.root, *AUTHOR, "commit", "--quiet", "--allow-empty", "-m", message)
        return _git(self.root, "rev-parse", "HEAD").strip()


def _matches(name: str, glob: str) -> bool:
    """`name` matches `glob` whole, a `*` never crossing a `/`."""
    path, pattern = PurePosixPath(name), PurePosixPath(glob)
    return len(path.parts) == len(pattern.parts) and path.match(glob)


def _baseline(folder: Path) -> list[str]:
    """The audit baseline file named in the sandbox's pyproject.toml, if any."""
    try:
        config = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    baseline = config.get("tool", {}).get("lowering-audit", {}).get("baseline")
    return [baseline] if baseline else []


def _git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        raise AgentError(f"git {' '.join(args)} in {cwd} took over {GIT_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        raise AgentError(
            f"git {' '.join(args)} in {cwd} failed: {done.stderr.strip()}; the sandbox is a clone "
            "of a commit of a git checkout"
        )
    return done.stdout


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # it has ended already
