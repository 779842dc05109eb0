"""What the skills claim about this repository, and how each claim is checked against the code.

A claim is a command (a shell block line, an inline `make ...`/`ntc ...` span, a Commands-table
cell), a path, a CLI flag, an op name, a pass or pipeline, a Python API, an audit code, a call, a
fenced excerpt with `from=<path or command>`, or a fenced list with `every=<kind>` that claims to
name every entry of a registry (`LISTS`). Nothing slow runs: commands are parsed by the real
argument parsers, files and Makefile targets are looked up, modules are imported; only the few
commands whose output an excerpt quotes run, side by side.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import functools
import importlib
import importlib.util
import io
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import compiler.backends  # noqa: F401 - registers the backend-specific passes
from compiler.backends.registry import TARGETS
from compiler.ir.registry import OPS
from compiler.passes.registry import parse_pipeline
from skills.evals import skill_dirs
from skills.markdown import Document, Fence, read_document

REPO = Path(__file__).resolve().parents[2]
SKILLS = REPO / "skills"
PACKAGES = ("compiler", "audits", "skills", "agents")
DIALECTS = frozenset(name.split(".")[0] for name in OPS)
SHELL = frozenset({"sh", "bash", "shell", "console"})
GENERIC_TOOLS = frozenset({"git", "cd", "ls", "cat", "grep", "diff", "cp", "mkdir", "export"})
EXTENSIONS = ("py", "md", "toml", "json", "mlir", "ssa", "txt", "cfg", "ini", "sh", "yaml")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(\.\w+)?$|[<{][^>}]*[>}]")
SSA_NUMBER = re.compile(r"%\d+")
# Names that change whenever the IR does: emitted value names and the IR's hash.
VOLATILE = re.compile(r"\bv\d+\b|\b[0-9a-f]{64}\b")
# Words that only this project uses: a SKILL.md (or a generic reference) names none of them.
COMMAND_TIMEOUT = 120
PROJECT_WORDS = re.compile(r"\b(NineToothed|ninetoothed|ntc|ntl|lowering-audit|LW[AT]\d{3})\b")


@dataclass(frozen=True)
class Source:
    """One Markdown file of a skill (or the library's README)."""

    skill: Path | None  # the skill folder, None for skills/README.md
    document: Document

    @property
    def project_facts(self) -> bool:
        """Whether this file may name the project (`references/project.md`, the README)."""
        return self.skill is None or self.document.path.name == "project.md"

    def where(self, line: int) -> str:
        return f"{self.document.path.relative_to(REPO)}:{line}"


def sources() -> list[Source]:
    found = [Source(None, read_document(SKILLS / "README.md"))]
    for skill in skill_dirs(SKILLS):
        files = [skill / "SKILL.md", *sorted((skill / "references").glob("*.md"))]
        found += [Source(skill, read_document(path)) for path in files if path.is_file()]
    return found


# -- classifying inline code spans ----------------------------------------------------------------


def classify(text: str) -> str:
    """The kind of claim an inline code span makes ('other' when it makes none we can check)."""
    words = text.split()
    if not words or "://" in text:
        return "other"
    if re.fullmatch(r"LW[AT]\d{3}", text):
        return "code"
    if text.startswith("-"):
        return "flag"
    if len(words) > 1 and _is_command_word(words[0]):
        return "command"
    if text.startswith("ssa."):
        return "pipeline"
    if re.fullmatch(rf"(?:{'|'.join(PACKAGES)})(?:\.\w+)+(?::\w+)?(?:\(.*\))?", text):
        return "api"
    if re.fullmatch(r"[a-z_]+\.[a-z_][a-z0-9_]*", text) and text.split(".")[0] in DIALECTS:
        return "op"
    if len(words) == 1 and ("/" in text or re.search(rf"\w\.({'|'.join(EXTENSIONS)})$", text)):
        return "path"
    if re.fullmatch(r"[A-Za-z_][\w.]*\(.*\)", text):
        return "call"
    return "other"


def _is_command_word(word: str) -> bool:
    return word in {"make", "ntc", "python", "python3", "pytest", "ruff", "lowering-audit"} or (
        word.startswith(".venv/bin/") or word in GENERIC_TOOLS
    )


# -- commands -------------------------------------------------------------------------------------


def command_lines(fence: Fence) -> Iterator[tuple[str, int]]:
    """The commands of a shell block: prompts and comments dropped, continuations joined."""
    pending, start = "", 0
    for offset, raw in enumerate(fence.text.splitlines(), 1):
        line = raw.split(" #")[0].strip() if not raw.lstrip().startswith("#") else ""
        line = line.removeprefix("$ ")
        if not line:
            continue
        if not pending:
            start = fence.line + offset
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        yield pending + line, start
        pending = ""


def check_command(command: str, skill: Path | None) -> str | None:
    """Why `command` would not run as written here, or None when it would."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        return f"cannot split {command!r}: {error}"
    word, rest = argv[0], argv[1:]
    tool = word.removeprefix(".venv/bin/")
    if word.startswith(".venv/bin/") and not (REPO / word).exists():
        return f"{word} does not exist; `make install` creates the virtual environment"
    if tool == "make":
        missing = [t for t in rest if not t.startswith("-") and t not in makefile_targets()]
        return f"no Makefile target {missing[0]!r}" if missing else None
    if tool == "ntc":
        return _parse(ntc_parser(), rest, skill)
    if tool == "lowering-audit":
        return _parse(audits_parser(), rest, skill)
    if tool in ("python", "python3"):
        return _check_python(rest, skill)
    if tool == "pytest":
        return _missing_paths([a for a in rest if not a.startswith("-")], skill)
    if tool in ("ruff", *GENERIC_TOOLS):
        return None
    return f"unknown command {word!r}: use a project command or add the tool to skill_claims.py"


def _check_python(rest: list[str], skill: Path | None) -> str | None:
    if not rest:
        return None
    if rest[0] == "-m":
        module, arguments = rest[1], rest[2:]
        if importlib.util.find_spec(module) is None:
            return f"no module {module!r}"
        parser = module_parsers().get(module)
        if parser is not None:
            return _parse(parser, arguments, skill)
        if module == "pytest":
            return _missing_paths([a for a in arguments if not a.startswith("-")], skill)
        return None
    # `$SKILL_DIR/scripts/x.py`: the skill's own script, run from the project's root
    script = resolve_path(rest[0].removeprefix("$SKILL_DIR/"), skill)
    if script is None:
        return f"no script {rest[0]!r}"
    return _parse(script_parser(script), rest[1:], skill) if script.suffix == ".py" else None


def _parse(parser: argparse.ArgumentParser, argv: list[str], skill: Path | None) -> str | None:
    argv = [_example(a) for a in argv]
    try:
        with contextlib.redirect_stderr(io.StringIO()) as errors:
            arguments = parser.parse_args(argv)
    except SystemExit:
        return f"{parser.prog} rejects {shlex.join(argv)!r}: {errors.getvalue().strip()}"
    named = [getattr(arguments, key, None) for key in ("file", "paths")]
    files = [f for value in named for f in ([value] if isinstance(value, str) else value or [])]
    return _missing_paths([f for f in files if not PLACEHOLDER.search(f)], skill)


def _example(argument: str) -> str:
    """A placeholder argument (`{file}`, FILE.py) replaced by a real file, so parsers accept it."""
    return "compiler/suite/programs/vector_add.py" if PLACEHOLDER.search(argument) else argument


def _missing_paths(paths: list[str], skill: Path | None) -> str | None:
    missing = [p for p in paths if resolve_path(p, skill) is None]
    return f"no such path {missing[0]!r}" if missing else None


def resolve_path(text: str, skill: Path | None) -> Path | None:
    """The file or folder `text` names, relative to the skill's folder (for the library's README:
    any skill's) or the repository root; a bare file name may be anywhere in the repository. A
    placeholder (`<backend>`, `{name}`) matches any name."""
    pattern = re.sub(r"<[^>]*>|\{[^}]*\}", "*", text.rstrip("/"))
    candidates = [pattern] if skill is not None else [pattern, f"*/{pattern}"]
    bases = [skill or SKILLS, REPO]
    for base in bases:
        for candidate in candidates:
            found = sorted(base.glob(candidate)) if "*" in candidate else [base / candidate]
            if found and found[0].exists():
                return found[0]
    if "/" not in pattern:
        return next((p for p in project_files() if p.match(pattern)), None)
    return None


@functools.cache
def project_files() -> tuple[Path, ...]:
    tracked = [REPO / package for package in (*PACKAGES, "tests", "examples")]
    return tuple(p for folder in tracked for p in folder.rglob("*") if "__pycache__" not in p.parts)


@functools.cache
def makefile_targets() -> frozenset[str]:
    text = (REPO / "Makefile").read_text()
    return frozenset(re.findall(r"^([\w.-]+):", text, re.M))


@functools.cache
def ntc_parser() -> argparse.ArgumentParser:
    from compiler.cli.commands import parser

    return parser()


@functools.cache
def audits_parser() -> argparse.ArgumentParser:
    from audits.cli import _parser

    return _parser()


@functools.cache
def module_parsers() -> dict[str, argparse.ArgumentParser]:
    from skills.evals import build_parser as evals_parser
    from skills.validate import build_parser as validate_parser

    return {
        "audits": audits_parser(),
        "compiler": ntc_parser(),
        "skills.evals": evals_parser(),
        "skills.validate": validate_parser(),
    }


@functools.cache
def script_module(path: Path) -> ModuleType:
    """A skill script loaded from its file (its `main` and `build_parser`)."""
    name = f"skill_script_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def script_parser(path: Path) -> argparse.ArgumentParser:
    return script_module(path).build_parser()


def known_flags() -> frozenset[str]:
    """Every option string of the parsers the skills may name, and of the audit's pytest plugin."""
    plugin = (REPO / "audits" / "pytest_plugin.py").read_text(encoding="utf-8")
    flags: set[str] = set(re.findall(r"addoption\(\s*\"(--[\w-]+)\"", plugin))
    parsers = [*module_parsers().values()]
    parsers += [script_parser(p) for p in sorted(SKILLS.glob("*/scripts/*.py"))]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            flags.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
    return frozenset(flags)


# -- other claims ---------------------------------------------------------------------------------


def check_api(text: str) -> str | None:
    """`package.module.attr`, `package.module:attr` or a call of one: it imports and resolves."""
    dotted = re.sub(r"\(.*\)$", "", text).replace(":", ".")
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        module_name = ".".join(parts[:split])
        try:
            found = importlib.util.find_spec(module_name) is not None
        except ModuleNotFoundError:
            found = False
        if found:
            value: object = importlib.import_module(module_name)
            for attribute in parts[split:]:
                if not hasattr(value, attribute):
                    return f"{module_name} has no {'.'.join(parts[split:])}"
                value = getattr(value, attribute)
            return None
    return f"no module for {text!r}"


def check_pipeline(text: str) -> str | None:
    """A pass name or a pipeline string; `<backend>`/`{backend}` stands for every backend."""
    for backend in sorted(TARGETS):
        pipeline = re.sub(r"<backend>|\{backend\}", backend, text)
        try:
            parse_pipeline(pipeline)
        except Exception as error:  # any failure to build the pipeline is the finding
            return f"{pipeline!r} is not a valid pipeline: {error}"
    return None


def check_call(text: str) -> str | None:
    """`name(...)` or `receiver.name(...)`: some Python file of the project defines `name`."""
    name = re.sub(r"\(.*\)$", "", text).split(".")[-1]
    if hasattr(builtins, name):
        return None
    definition = re.compile(
        rf"^\s*(?:def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*=", re.M
    )
    if any(definition.search(text) for text in project_sources().values()):
        return None
    return f"nothing in {', '.join(PACKAGES)} defines {name!r}"


@functools.cache
def project_sources() -> dict[Path, str]:
    files = [p for package in PACKAGES for p in (REPO / package).rglob("*.py")]
    return {path: path.read_text(encoding="utf-8") for path in files}


@functools.cache
def audit_codes() -> frozenset[str]:
    from audits.catalogue import all_rules

    return frozenset(info.code for info in all_rules())


def ir_ops(text: str) -> list[tuple[str, int]]:
    """The op names of IR text, with their line offsets."""
    op = re.compile(r"^\s*(?:%[\w%, ]+=\s*)?([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\(")
    return [(m[1], n) for n, line in enumerate(text.splitlines(), 1) if (m := op.match(line))]


# -- complete lists -------------------------------------------------------------------------------

ORDERED_LISTS = frozenset({"pipeline"})  # compared in order, repeats included


@functools.cache
def registries() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Per kind of `every=` list: where the truth lives, and every entry it has."""
    from compiler.backends.registry import DEVICE_TARGETS
    from compiler.passes.registry import DEFAULT_PIPELINE, all_passes

    commands = next(
        action.choices
        for action in ntc_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    return {
        "backends": ("compiler.backends.registry:TARGETS", tuple(sorted(TARGETS))),
        "devices": (
            "compiler.backends.registry:DEVICE_TARGETS",
            tuple(sorted(f"{name}:{device}" for name, device in DEVICE_TARGETS)),
        ),
        "passes": ("the pass registry (`ntc passes`)", tuple(c.name for c in all_passes())),
        "pipeline": ("compiler.passes.registry:DEFAULT_PIPELINE", DEFAULT_PIPELINE),
        "ops": ("compiler.ir.registry:OPS", tuple(sorted(OPS))),
        "commands": ("ntc's parser (compiler/cli/commands.py)", tuple(sorted(commands))),
    }


def listed(fence: Fence) -> list[str]:
    """An `every=` block's entries: names apart by spaces or commas; a line `key: a b` lists
    `key:a` and `key:b` (a backend and its devices)."""
    entries = []
    for line in fence.text.splitlines():
        key, colon, rest = line.partition(":")
        names = [name for name in re.split(r"[\s,]+", rest if colon else line) if name]
        entries += [f"{key.strip()}:{name}" for name in names] if colon else names
    return entries


def list_problem(fence: Fence) -> str | None:
    """Why an `every=<kind>` block is not the registry's list both ways, or None when it is."""
    kind = fence.attrs["every"]
    if kind not in registries():
        return f"every={kind}: no such list; the lists: {', '.join(registries())}"
    source, truth = registries()[kind]
    entries = listed(fence)
    if kind in ORDERED_LISTS:
        if entries == list(truth):
            return None
        return f"the {kind} is {' '.join(truth)} in {source}, not {' '.join(entries)}"
    problems = []
    missing = sorted(set(truth) - set(entries))
    unknown = sorted(set(entries) - set(truth))
    if missing:
        problems.append(f"omits {', '.join(missing)}, which {source} has: add them")
    if unknown:
        problems.append(f"names {', '.join(unknown)}, which {source} lacks: remove them")
    return f"the list of all {kind} " + "; ".join(problems) if problems else None


# -- excerpts -------------------------------------------------------------------------------------


def excerpt_problem(fence: Fence, skill: Path | None, outputs: dict[str, str]) -> str | None:
    """A `from=` block's runs of lines (cut at `...`) must each appear whole, in order, in the file
    it names or in `outputs[command]`, the output of the command it names: a quote may leave lines
    out only where it says so. IR compares without SSA numbers."""
    origin = fence.attrs["from"]
    normal = _normal_ir if fence.language == "mlir" else _normal_text
    if " " in origin:
        problem = check_command(origin, skill)
        if problem:
            return problem
        text = outputs[origin]
        normal = functools.partial(_normal_output, normal)
    else:
        path = resolve_path(origin, skill)
        if path is None or not path.is_file():
            return f"no file {origin!r}"
        text = path.read_text(encoding="utf-8")
    have = [normal(line) for line in text.splitlines() if line.strip()]
    start = 0
    for run in _runs(fence.text):
        wanted = [normal(line) for line in run]
        found = next(
            (at for at in range(start, len(have)) if have[at : at + len(wanted)] == wanted), None
        )
        if found is None:
            return (
                f"{run[0]!r} and the {len(run) - 1} line(s) after it are not in {origin} as one "
                "run (or not in this order); mark what a quote leaves out with `...`"
            )
        start = found + len(wanted)
    return None


def _runs(text: str) -> list[list[str]]:
    """A quote's runs of lines, cut at its `...` lines (blank lines are left out of both sides)."""
    runs: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip() == "...":
            runs.append([])
        elif line.strip():
            runs[-1].append(line)
    return [run for run in runs if run]


def command_outputs(commands: set[str]) -> dict[str, str]:
    """Each command's stdout, as a fresh process would print it (see run_commands.py)."""
    if not commands:
        return {}
    driver = Path(__file__).with_name("run_commands.py")
    done = subprocess.run(
        [sys.executable, str(driver), json.dumps(sorted(commands))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=True,
    )
    results = json.loads(done.stdout)
    # Exit status 1 is a checker reporting findings; anything else is a failure to show.
    return {
        c: out if status in (0, 1) else f"exit {status}" for c, (status, out) in results.items()
    }


def _normal_text(line: str) -> str:
    return " ".join(line.split())


def _normal_ir(line: str) -> str:
    return SSA_NUMBER.sub("%", _normal_text(line))


def _normal_output(normal, line: str) -> str:
    return VOLATILE.sub("#", normal(line))


def python_block_is_parsed(fence: Fence) -> str | None:
    import ast

    try:
        ast.parse(fence.text)
    except SyntaxError as error:
        return f"not valid Python: {error}"
    return None


SNIPPET_PATH = "compiler/passes/skill_example.py"  # a shared file: every rule applies


def audit_findings(fence: Fence) -> list:
    """The code audit's findings for a Python block, audited as the file its `path=` names (a
    hypothetical file of the project) or else as a shared pass."""
    from audits.config import load_config
    from audits.engine import audit_source

    config = load_config(REPO / "pyproject.toml")
    path = fence.attrs.get("path", SNIPPET_PATH)
    return audit_source(fence.text, config, path, frozenset(OPS))
