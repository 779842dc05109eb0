"""Skill evals: task prompts with expectations that the project's audits and tests can check.

Each skill keeps its cases in `evals/*.json`:

    {"skill_name": "<skill>",
     "evals": [{"id": "<slug>", "prompt": "<the task>", "expected_output": "<a good result>",
                "files": ["<paths the task starts from>"],
                "setup": {"<path in the tree>": "<a file of the skill, planted there first>"},
                "expectations": [{"text": "<a claim>", "check": {"kind": ..., ...}}, ...]}]}

`files` and `setup` are optional. `setup` makes the tree the prompt talks about: each file of the
skill (relative to its folder) is copied to its path in the tree before the task starts.

Check kinds (an expectation without `check` is judged by a reviewer):

- `command`: run the command the skill's `references/project.md` lists under `command` (a key of
  its Commands table); pass when it exits with `exit_code` (default 0).
- `absent` / `present`: the regular expression `pattern` matches no / some line of the files under
  `paths` (files or folders) whose names match `glob` (default `*.py`).
- `ir-ops`: compile `program` with the `emit-ssa` command (plus `args`); every op in `include` is
  in the IR and no op in `exclude` is.

`python -m skills.evals list` shows the cases; `python -m skills.evals grade SKILL ID --root DIR`
checks a working tree after an agent ran the task (with the skill or without it);
`python -m agents eval` runs cases through an agent with and without the skill and grades both.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from skills.markdown import read_document, table

SKILLS_DIR = Path(__file__).resolve().parent
KINDS = {
    "command": {"command"},
    "absent": {"pattern", "paths"},
    "present": {"pattern", "paths"},
    "ir-ops": {"program"},
}
OPTIONAL = {
    "command": {"exit_code"},
    "absent": {"glob"},
    "present": {"glob"},
    "ir-ops": {"args", "include", "exclude"},
}
_OP = re.compile(r"\b([a-z_]+\.[a-z_][a-z0-9_]*)\(")


@dataclass(frozen=True)
class Result:
    text: str
    status: str  # pass | fail | judge
    detail: str = ""


def project_commands(skill_dir: Path) -> dict[str, str]:
    """The skill's Commands table (`key` -> `command`) from its `references/project.md`."""
    path = skill_dir / "references" / "project.md"
    if not path.is_file():
        return {}
    return {row["key"]: row["command"] for row in table(read_document(path), "Commands")}


def eval_files(skill_dir: Path) -> list[Path]:
    return sorted((skill_dir / "evals").glob("*.json"))


def load_cases(skill_dir: Path) -> list[dict]:
    cases = []
    for path in eval_files(skill_dir):
        cases += json.loads(path.read_text(encoding="utf-8")).get("evals", [])
    return cases


def validate_file(path: Path, skill_name: str, commands: dict[str, str]) -> list[str]:
    """What is wrong with one eval file, as messages; empty when it is well formed."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        return [f"not JSON: {error}"]
    if not isinstance(document, dict) or set(document) != {"skill_name", "evals"}:
        return ['write one object {"skill_name": ..., "evals": [...]}']
    problems = []
    if document["skill_name"] != skill_name:
        problems.append(f"skill_name {document['skill_name']!r} is not {skill_name!r}")
    cases = document["evals"]
    if not isinstance(cases, list) or not cases:
        return [*problems, "evals must be a non-empty list"]
    ids = [case.get("id") for case in cases if isinstance(case, dict)]
    problems += [f"id {i!r} is used twice" for i in sorted(set(ids), key=str) if ids.count(i) > 1]
    for number, case in enumerate(cases):
        problems += [f"evals[{number}]: {p}" for p in _validate_case(case, commands)]
        setup = case.get("setup") if isinstance(case, dict) else None
        sources = setup.values() if isinstance(setup, dict) else []
        missing = [f for f in sources if not (path.parents[1] / f).is_file()]
        problems += [f"evals[{number}]: setup names {f}, not a file of the skill" for f in missing]
    return problems


def _validate_case(case: object, commands: dict[str, str]) -> list[str]:
    required = {"id", "prompt", "expected_output", "expectations"}
    if not isinstance(case, dict) or not required <= set(case) <= required | {"files", "setup"}:
        return [f"needs the keys {sorted(required)} (and optionally files, setup)"]
    problems = []
    if not (isinstance(case["id"], str) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", case["id"])):
        problems.append(f"id {case['id']!r} must be a lowercase slug")
    for key in ("prompt", "expected_output"):
        if not isinstance(case[key], str) or not case[key].strip():
            problems.append(f"{key} must be a non-empty string")
    if not isinstance(case.get("files", []), list):
        problems.append("files must be a list of paths")
    setup = case.get("setup", {})
    if not isinstance(setup, dict) or not all(isinstance(v, str) for v in setup.values()):
        problems.append("setup must map paths in the tree to files of the skill")
    expectations = case["expectations"]
    if not isinstance(expectations, list) or not expectations:
        return [*problems, "expectations must be a non-empty list"]
    checks = [e.get("check") for e in expectations if isinstance(e, dict) and e.get("check")]
    if not any(check.get("kind") == "command" for check in checks if isinstance(check, dict)):
        problems.append("needs at least one `command` check (the audit or the tests)")
    for number, expectation in enumerate(expectations):
        for problem in _validate_expectation(expectation, commands):
            problems.append(f"expectations[{number}]: {problem}")
    return problems


def _validate_expectation(expectation: object, commands: dict[str, str]) -> list[str]:
    if not isinstance(expectation, dict) or not set(expectation) <= {"text", "check"}:
        return ['write {"text": ..., "check": {...}} (check is optional)']
    if not isinstance(expectation.get("text"), str) or not expectation["text"].strip():
        return ["text must be a non-empty string"]
    check = expectation.get("check")
    if check is None:
        return []
    kind = check.get("kind") if isinstance(check, dict) else None
    if kind not in KINDS:
        return [f"check kind {kind!r} is not one of {', '.join(KINDS)}"]
    keys = set(check) - {"kind"}
    if not KINDS[kind] <= keys <= KINDS[kind] | OPTIONAL[kind]:
        allowed = sorted(KINDS[kind] | OPTIONAL[kind])
        return [f"a {kind} check takes {sorted(KINDS[kind])} (of {allowed}), got {sorted(keys)}"]
    if kind == "command" and check["command"] not in commands:
        return [f"command {check['command']!r} is not a key of references/project.md's Commands"]
    if kind == "ir-ops" and "emit-ssa" not in commands:
        return ["an ir-ops check needs an emit-ssa command in references/project.md"]
    if kind in ("absent", "present"):
        try:
            re.compile(check["pattern"])
        except re.error as error:
            return [f"pattern {check['pattern']!r} is not a regular expression: {error}"]
    return []


@dataclass(frozen=True)
class Commands:
    """How the checks run commands: the table (key -> command), their environment and limit."""

    table: dict[str, str]
    env: dict[str, str] | None = None  # None: this process's environment
    timeout: float | None = None  # seconds per command; None: no limit

    def run(self, command: str, root: Path) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(
                shlex.split(command),
                cwd=root,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=self.timeout,
            )
        except subprocess.TimeoutExpired:
            message = f"timed out after {self.timeout:.0f} s"
            return subprocess.CompletedProcess(command, -1, "", message)


def grade(
    skill_dir: Path | None, case: dict, root: Path, commands: Commands | None = None
) -> list[Result]:
    """Check every expectation of `case` against the working tree at `root`, running commands
    from the skill's project.md table unless `commands` says otherwise (e.g. for a sandbox)."""
    commands = commands or Commands(project_commands(skill_dir))
    results = []
    for expectation in case["expectations"]:
        check = expectation.get("check")
        if check is None:
            results.append(Result(expectation["text"], "judge"))
            continue
        passed, detail = _CHECKERS[check["kind"]](check, root, commands)
        results.append(Result(expectation["text"], "pass" if passed else "fail", detail))
    return results


def _check_command(check: dict, root: Path, commands: Commands) -> tuple[bool, str]:
    done = commands.run(commands.table[check["command"]], root)
    want = check.get("exit_code", 0)
    tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
    return done.returncode == want, f"exit {done.returncode} (want {want}): " + " | ".join(tail)


def _matches(check: dict, root: Path) -> list[str]:
    pattern, hits = re.compile(check["pattern"]), []
    for given in check["paths"]:
        path = root / given
        files = [path] if path.is_file() else sorted(path.rglob(check.get("glob", "*.py")))
        for file in files:
            for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                if pattern.search(line):
                    hits.append(f"{file.relative_to(root)}:{number}: {line.strip()}")
    return hits


def _check_absent(check: dict, root: Path, commands: Commands) -> tuple[bool, str]:
    hits = _matches(check, root)
    return not hits, "; ".join(hits[:5])


def _check_present(check: dict, root: Path, commands: Commands) -> tuple[bool, str]:
    hits = _matches(check, root)
    return bool(hits), hits[0] if hits else f"no line matches {check['pattern']!r}"


def _check_ir_ops(check: dict, root: Path, commands: Commands) -> tuple[bool, str]:
    command = commands.table["emit-ssa"].format(file=shlex.quote(check["program"]))
    args = "".join(" " + shlex.quote(a) for a in check.get("args", []))
    done = commands.run(command + args, root)
    if done.returncode != 0:
        return False, f"{command} exited {done.returncode}: {done.stderr.strip()[-300:]}"
    ops = set(_OP.findall(done.stdout))
    missing = sorted(set(check.get("include", [])) - ops)
    forbidden = sorted(set(check.get("exclude", [])) & ops)
    return not (missing or forbidden), f"missing {missing}, forbidden present {forbidden}"


_CHECKERS = {
    "command": _check_command,
    "absent": _check_absent,
    "present": _check_present,
    "ir-ops": _check_ir_ops,
}


def skill_dirs(root: Path = SKILLS_DIR) -> list[Path]:
    """Every folder of `root` that is not private (`_x`, `.x`): each must be a skill."""
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m skills.evals",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every skill's eval cases")
    grading = commands.add_parser("grade", help="check a case's expectations in a working tree")
    grading.add_argument("skill")
    grading.add_argument("id")
    grading.add_argument("--root", type=Path, default=Path.cwd(), help="the working tree")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    if arguments.command == "list":
        for skill_dir in skill_dirs():
            for case in load_cases(skill_dir):
                print(f"{skill_dir.name:34} {case['id']:36} {case['prompt'][:60]}")
        return 0
    skill_dir = SKILLS_DIR / arguments.skill
    case = next((c for c in load_cases(skill_dir) if c["id"] == arguments.id), None)
    if case is None:
        print(f"no eval {arguments.id!r} in {skill_dir}/evals", file=sys.stderr)
        return 2
    results = grade(skill_dir, case, arguments.root.resolve())
    for result in results:
        print(f"{result.status:5} {result.text}")
        if result.detail:
            print(f"      {result.detail}")
    return 1 if any(r.status == "fail" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
