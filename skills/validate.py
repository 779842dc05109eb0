"""`python -m skills.validate [SKILL_DIR ...]`: check skills against the Agent Skills specification
and this library's conventions. Exit 0 when every skill is valid, 1 on problems, 2 on bad usage.

Specification (agentskills.io/specification):
  frontmatter    SKILL.md starts with YAML frontmatter holding only name, description, license,
                 compatibility, metadata and allowed-tools
  name           1-64 lowercase letters, digits and single hyphens, equal to the folder's name
  description    a non-empty string of at most 1024 characters
  optional-field compatibility 1-500 characters; license a string; metadata a string-to-string
                 map; allowed-tools a space-separated string or a list of strings
  body-length    the Markdown body is under 500 lines
  file-reference every file the skill names (links, `references/...`, `scripts/...`) exists, one
                 level deep: <folder>/<file>; a reference file does not send the reader on to
                 another reference file
  script-help    every file in scripts/ runs with --help, prints a usage and exits 0
Library conventions (skills/README.md):
  when-to-use    the description says when to use the skill ("Use when ...")
  project-facts  references/project.md exists, SKILL.md names it, and its Commands table has the
                 keys `audit` and `test`
  sections       a Procedure or Decision tree, Worked examples, a Common mistakes table, and a
                 Checklist of `- [ ]` items whose last two run the audit and then the tests
  orphan-file    every file in references/ and scripts/ is named in SKILL.md
  evals          evals/*.json exist and are well formed (see skills/evals.py)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from skills.evals import SKILLS_DIR, eval_files, project_commands, skill_dirs, validate_file
from skills.markdown import Document, MarkdownError, read_document, section

ALLOWED_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
MAX_NAME, MAX_DESCRIPTION, MAX_COMPATIBILITY, MAX_BODY_LINES = 64, 1024, 500, 500
SKILL_FOLDERS = ("references", "scripts", "assets", "evals")
LOCAL_PATH = re.compile(rf"^(?:{'|'.join(SKILL_FOLDERS)})/\S*$")
SCRIPT_TIMEOUT = 60
IGNORED = {"__pycache__"}  # what running the scripts leaves behind

Issue = tuple[str, str, int]  # (rule, message, line); line 0 when it is about the whole file


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: [{self.rule}] {self.message}"


def validate_skill(skill_dir: Path, run_scripts: bool = True) -> list[Problem]:
    """Every problem of the skill in `skill_dir`; empty when it is valid."""
    skill_md = skill_dir / "SKILL.md"
    if not skill_md.is_file():
        return [Problem(str(skill_dir), 0, "frontmatter", "no SKILL.md in the skill's folder")]
    try:
        document = read_document(skill_md)
    except MarkdownError as error:
        return [Problem(str(skill_md), 1, "frontmatter", str(error))]
    if document.frontmatter is None:
        return [Problem(str(skill_md), 1, "frontmatter", "start SKILL.md with --- frontmatter")]
    problems = [
        Problem(str(skill_md), line, rule, message)
        for check in (_frontmatter, _body, _file_references, _sections)
        for rule, message, line in check(document, skill_dir)
    ]
    problems += _files(document, skill_dir)
    if run_scripts:
        problems += _scripts(skill_dir)
    return sorted(problems)


def _frontmatter(document: Document, skill_dir: Path) -> Iterator[Issue]:
    data = document.frontmatter
    extra = sorted(set(data) - ALLOWED_FIELDS)
    if extra:
        yield "frontmatter", f"unexpected fields {extra}; allowed: {sorted(ALLOWED_FIELDS)}", 1
    name = data.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name) or len(name) > MAX_NAME:
        yield "name", f"name {name!r}: use 1-{MAX_NAME} lowercase letters, digits, hyphens", 1
    elif name != skill_dir.name:
        yield "name", f"name {name!r} differs from the folder {skill_dir.name!r}", 1
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        yield "description", "description must be a non-empty string", 1
        return
    if len(description) > MAX_DESCRIPTION:
        yield "description", f"{len(description)} characters; at most {MAX_DESCRIPTION}", 1
    if "use when" not in description.lower():
        yield "when-to-use", 'say when to use the skill: "Use when ..."', 1
    yield from (("optional-field", message, 1) for message in _optional_fields(data))


def _optional_fields(data: dict) -> Iterator[str]:
    compatibility = data.get("compatibility")
    if compatibility is not None and not (
        isinstance(compatibility, str) and 1 <= len(compatibility) <= MAX_COMPATIBILITY
    ):
        yield f"compatibility must be a string of 1-{MAX_COMPATIBILITY} characters"
    if "license" in data and not isinstance(data["license"], str):
        yield "license must be a string"
    metadata = data.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        yield 'metadata must map strings to strings (quote numbers: version: "1.0")'
    tools = data.get("allowed-tools")
    if tools is not None and not (
        isinstance(tools, str)
        or (isinstance(tools, list) and all(isinstance(t, str) for t in tools))
    ):
        yield "allowed-tools must be a space-separated string or a list of strings"


def _body(document: Document, skill_dir: Path) -> Iterator[Issue]:
    if document.body_lines >= MAX_BODY_LINES:
        yield "body-length", f"{document.body_lines} lines; move details to references/", 1


def local_references(document: Document) -> list[tuple[str, int]]:
    """The skill-local files a document names: relative links, and `<folder>/...` words in code
    spans and fenced blocks (paths relative to the skill's folder, as the specification writes)."""
    named = [(t.split("#")[0], n) for t, n in document.links if "://" not in t and t[0] != "#"]
    texts = [(span.text, span.line) for span in document.spans]
    for fence in document.fences:
        texts += [(line, fence.line + n) for n, line in enumerate(fence.text.splitlines(), 1)]
    for text, line in texts:
        # `$SKILL_DIR/scripts/x.py`: a command that runs the skill's file from the project's root
        words = (word.strip("\"'(),.;:").removeprefix("$SKILL_DIR/") for word in text.split())
        named += [(word, line) for word in words if LOCAL_PATH.match(word)]
    return [(target, line) for target, line in named if target.rstrip("/") not in SKILL_FOLDERS]


def _file_references(document: Document, skill_dir: Path) -> Iterator[Issue]:
    for target, line in local_references(document):
        parts = Path(target).parts
        if len(parts) != 2 or parts[0] not in SKILL_FOLDERS:
            folders = "|".join(SKILL_FOLDERS)
            yield "file-reference", f"{target}: name files one level deep, <{folders}>/<file>", line
        elif not any(path.is_file() for path in skill_dir.glob(target)):
            yield "file-reference", f"{target} does not exist", line


def _sections(document: Document, skill_dir: Path) -> Iterator[Issue]:
    if not (skill_dir / "references" / "project.md").is_file():
        yield "project-facts", "add references/project.md with the project's facts", 1
    elif "references/project.md" not in {t for t, _ in local_references(document)}:
        yield "project-facts", "name references/project.md in SKILL.md", 1
    elif not {"audit", "test"} <= set(project_commands(skill_dir)):
        yield "project-facts", "give references/project.md's Commands table audit and test", 1
    if not (section(document, "Procedure") or section(document, "Decision tree")):
        yield "sections", "add a Procedure or Decision tree section", 1
    if not section(document, "Worked examples"):
        yield "sections", "add a Worked examples section", 1
    if "|---" not in section(document, "Common mistakes").replace(" ", ""):
        yield "sections", "add a Common mistakes section with a table", 1
    items = re.findall(r"^- \[ \] (.*)$", section(document, "Checklist"), re.M)
    if len(items) < 2 or "audit" not in items[-2].lower() or "test" not in items[-1].lower():
        yield "sections", "end the Checklist with `- [ ]` items: run the audit, run the tests", 1


def _files(document: Document, skill_dir: Path) -> list[Problem]:
    """Orphans, nested or chained references, and the eval files."""
    problems = []
    named = {target for target, _ in local_references(document)}
    for folder in ("references", "scripts"):
        for path in sorted((skill_dir / folder).glob("*")):
            if path.name in IGNORED or path.name.startswith("."):
                continue
            if path.is_dir():
                problems.append(Problem(str(path), 0, "file-reference", "no folders in " + folder))
            elif f"{folder}/{path.name}" not in named:
                problems.append(Problem(str(path), 0, "orphan-file", "SKILL.md never names it"))
            elif path.suffix == ".md" and folder == "references":
                problems += _chained(path, skill_dir)
    files = eval_files(skill_dir)
    if not files:
        problems.append(Problem(str(skill_dir / "evals"), 0, "evals", "add evals/*.json"))
    commands = project_commands(skill_dir)
    for path in files:
        for message in validate_file(path, document.frontmatter.get("name"), commands):
            problems.append(Problem(str(path), 0, "evals", message))
    return problems


def _chained(reference: Path, skill_dir: Path) -> list[Problem]:
    """A reference file that names another reference file: a chain deeper than one level."""
    problems = []
    for target, line in local_references(read_document(reference)):
        resolved = skill_dir / target if "/" in target else reference.parent / target
        if resolved.parent == reference.parent and resolved.name != reference.name:
            message = f"names {target}; reference files are one level deep: name it in SKILL.md"
            problems.append(Problem(str(reference), line, "file-reference", message))
    return problems


def _scripts(skill_dir: Path) -> list[Problem]:
    problems = []
    for script in sorted((skill_dir / "scripts").glob("*")):
        if not script.is_file() or script.name.startswith("."):
            continue  # __pycache__ and hidden files
        runner = {".py": [sys.executable], ".sh": ["bash"]}.get(script.suffix, [])
        try:
            done = subprocess.run(
                [*runner, str(script), "--help"],
                capture_output=True,
                text=True,
                timeout=SCRIPT_TIMEOUT,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            problems.append(Problem(str(script), 0, "script-help", f"--help failed: {error}"))
            continue
        if done.returncode != 0 or "usage" not in done.stdout.lower():
            tail = (done.stderr or done.stdout).strip()[-300:]
            message = f"--help exited {done.returncode} without a usage message: {tail}"
            problems.append(Problem(str(script), 0, "script-help", message))
    return problems


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m skills.validate",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("skills", nargs="*", type=Path, help="skill folders (default: all)")
    parser.add_argument("--no-scripts", action="store_true", help="do not run scripts/ --help")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    folders = arguments.skills or skill_dirs(SKILLS_DIR)
    if not folders:
        print(f"no skills found under {SKILLS_DIR}", file=sys.stderr)
        return 2
    problems = [p for folder in folders for p in validate_skill(folder, not arguments.no_scripts)]
    for problem in problems:
        print(problem)
    print(f"{len(folders)} skills, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
