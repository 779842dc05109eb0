"""What the `run` tool may run in the sandbox, and how a project command runs there.

The allowlist holds the task's `commands`, the Commands tables of the sandbox's skills
(`skills/*/references/project.md`; a withheld skill takes its commands with it), every skill script
(`python skills/<skill>/scripts/<name>.py ...`, what a table's bare `.venv/bin/python` row is for)
and `pytest` on paths or node ids; a task with `scratch: true` also `python scratch/FILE.py`, its
proof programs (the sandbox's git ignores `scratch/`, so they never reach the patch). An entry
allows the commands that begin with its fixed words, those before its first `{placeholder}` or
`--option`: `.venv/bin/ntc compile {file} --emit ssa` allows `ntc compile ...`. A make target is
allowed as it is, without options or other targets. `.venv/bin/` in front of a command is
optional; arguments may not lead outside the sandbox.

The list keeps a model to the project's commands. It is not a jail: `ntc run` and `pytest` run
code the model wrote, as the user, in the sandbox folder.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agents.sandbox import Refused, Sandbox
from skills.evals import project_commands, skill_dirs

# A sandbox has no .venv: `.venv/bin/X` becomes the X beside the interpreter that runs the workflow
# (`{bin}`), and `make T` runs T's recipe with that interpreter and without `make install`, which
# would install the sandbox into it.
SANDBOX_FORMS = ((".venv/bin/", "{bin}/"), ("make ", "make -o install PY={bin}/python "))
VENV = ".venv/bin/"
PLACEHOLDER = re.compile(r"\{[^}]*\}|<[^>]*>")
SHELL_WORDS = frozenset({";", "|", "||", "&", "&&", ">", ">>", "<", "2>", "2>&1", "&>"})
PYTEST = ("pytest",)
SCRATCH = "scratch/"  # a task's proof programs: ignored by the sandbox's git, never in the patch


@dataclass(frozen=True)
class Allowed:
    words: tuple[str, ...]  # the fixed words a command must begin with, normalised
    exact: bool = False  # nothing may follow (make targets)
    under: str = ""  # the word after `words` must be a file in this folder (`scratch/`)

    def text(self) -> str:
        if self.words == PYTEST:
            return "pytest PATH_OR_NODE_ID ... (or python -m pytest)"
        if self.under:
            return " ".join(self.words) + f" {self.under}FILE.py ..."
        return " ".join(self.words) + ("" if self.exact else " ...")

    def allows(self, argv: list[str]) -> bool:
        start = tuple(argv[: len(self.words)])
        if start != self.words or (self.exact and len(argv) != len(self.words)):
            return False
        if not self.under:
            return True
        following = argv[len(self.words) : len(self.words) + 1]
        return bool(following) and _is_under(following[0], self.under)


def sandbox_command(command: str) -> str:
    """A command of project.md as it runs in a sandbox, `{bin}` still to be filled in."""
    for prefix, replacement in SANDBOX_FORMS:
        if command.startswith(prefix):
            return replacement + command[len(prefix) :]
    return command


def allowlist(task_commands: tuple[str, ...], root: Path, scratch: bool = False) -> list[Allowed]:
    """The entries for a task in the sandbox at `root`, without repeats, in a stable order;
    `scratch`: also `python` on the task's proof programs in `SCRATCH` (never part of the patch)."""
    templates = list(task_commands)
    skills = skill_dirs(root / "skills") if (root / "skills").is_dir() else []
    for skill in skills:
        templates += project_commands(skill).values()
    entries = [entry for template in templates if (entry := _entry(template))]
    scripts = sorted((root / "skills").glob("*/scripts/*.py"))
    entries += [Allowed(("python", p.relative_to(root).as_posix())) for p in scripts]
    entries.append(Allowed(PYTEST))
    if scratch:
        entries.append(Allowed(("python",), under=SCRATCH))
    return sorted(set(entries), key=lambda entry: (entry.words, entry.under))


def listing(allowed: list[Allowed]) -> str:
    return "\n".join(f"- {entry.text()}" for entry in allowed)


def checked(command: str, allowed: list[Allowed], sandbox: Sandbox) -> list[str]:
    """The normalised words of `command` if the allowlist has it; else `Refused`, saying why."""
    try:
        argv = normalise(shlex.split(command))
    except ValueError as error:
        raise Refused(
            f"cannot split {command!r} into words ({error}); quote it as a shell would"
        ) from None
    if not argv:
        raise Refused("give a command, e.g. ntc compile compiler/suite/programs/vector_add.py")
    shell = [word for word in argv if word in SHELL_WORDS or "$(" in word or "`" in word]
    if shell:
        raise Refused(
            f"{command!r}: {shell[0]!r} needs a shell, and run has none: give one command, "
            "without pipes, redirections, ; or &&"
        )
    if not any(entry.allows(argv) for entry in allowed):
        raise Refused(f"{command!r} is not a command of this task. run allows:\n{listing(allowed)}")
    for path in filter(None, map(_path_of, argv[1:])):
        sandbox.path(path)  # refuses what leads outside the sandbox
    targets = [word.partition("::")[0] for word in argv[1:] if not word.startswith("-")]
    if argv[0] == "pytest" and not any(sandbox.path(t).exists() for t in targets):
        raise Refused(
            f"{command!r}: give pytest the paths or node ids to run (tests/x.py, "
            "tests/x.py::test_y); `make test` runs the whole suite"
        )
    return argv


def normalise(argv: list[str]) -> list[str]:
    """`.venv/bin/ntc` -> `ntc`, `python3` -> `python`, `python -m pytest` -> `pytest`."""
    if not argv:
        return argv
    first = argv[0].removeprefix(VENV)
    argv = ["python" if first == "python3" else first, *argv[1:]]
    if argv[:3] == ["python", "-m", "pytest"]:
        return ["pytest", *argv[3:]]
    return argv


def runnable(argv: list[str], bin_dir: Path) -> list[str]:
    """Normalised words as the sandbox runs them: the interpreter's own tools from its folder,
    make targets with that interpreter (`SANDBOX_FORMS`)."""
    if argv[0] == "pytest":
        argv = ["python", "-m", "pytest", *argv[1:]]
    text = shlex.join(argv)
    if (bin_dir / argv[0]).is_file():
        text = VENV + text
    return shlex.split(sandbox_command(text).replace("{bin}", str(bin_dir)))


def _entry(template: str) -> Allowed | None:
    words = normalise(shlex.split(template))
    if words in ([], ["python"]):
        return None  # the bare interpreter: the skills' scripts are entries of their own
    if words[0] == "make":
        return Allowed(tuple(words), exact=True)
    fixed = []
    for word in words:
        if PLACEHOLDER.search(word) or word.startswith("--"):
            break
        fixed.append(word)
    return Allowed(tuple(fixed))


def _is_under(word: str, folder: str) -> bool:
    path = PurePosixPath(word)
    return not path.is_absolute() and ".." not in path.parts and word.startswith(folder)


def _path_of(word: str) -> str | None:
    """The path a word names, if it looks like one (`--out=x/y.png` names `x/y.png`)."""
    if word.startswith("-"):
        word = word.partition("=")[2]
    word = word.partition("::")[0]  # a pytest node id
    return word if "/" in word or word.startswith(".") else None
