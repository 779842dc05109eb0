"""Eval cases: well formed, pointing at things that exist, and graded correctly."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from skill_claims import REPO, resolve_path

from compiler.ir.registry import OPS
from skills.evals import (
    Commands,
    eval_files,
    grade,
    load_cases,
    main,
    project_commands,
    skill_dirs,
    validate_file,
)

SKILLS = skill_dirs()


@pytest.mark.parametrize("skill", SKILLS, ids=lambda path: path.name)
def test_each_skill_has_well_formed_cases(skill: Path) -> None:
    cases = load_cases(skill)
    assert len(cases) >= 2
    for path in eval_files(skill):
        assert validate_file(path, skill.name, project_commands(skill)) == []


def _checks(kind: str):
    for skill in SKILLS:
        for case in load_cases(skill):
            for expectation in case["expectations"]:
                check = expectation.get("check")
                if check and check["kind"] == kind:
                    yield skill, case, check


def test_cases_name_files_programs_and_ops_that_exist() -> None:
    problems = []
    for skill in SKILLS:
        for case in load_cases(skill):
            problems += [
                f"{case['id']}: {f}" for f in case.get("files", []) if not resolve_path(f, skill)
            ]
    for kind in ("absent", "present"):
        for _, case, check in _checks(kind):
            problems += [f"{case['id']}: {p}" for p in check["paths"] if not _exists_or_planned(p)]
    for _, case, check in _checks("ir-ops"):
        if not (REPO / check["program"]).is_file():
            problems.append(f"{case['id']}: no program {check['program']}")
        unknown = set(check.get("include", []) + check.get("exclude", [])) - set(OPS)
        problems += [f"{case['id']}: unregistered op {op}" for op in sorted(unknown)]
    assert not problems, "\n".join(problems)


def _exists_or_planned(path: str) -> bool:
    """A checked path exists, or is a new folder a task creates inside an existing one."""
    return (REPO / path).exists() or (REPO / path).parent.is_dir()


def test_every_absent_check_holds_on_the_current_tree() -> None:
    """The forbidden patterns match nothing today, so a failure after a task is the task's."""
    for skill in SKILLS:
        for case in load_cases(skill):
            absent = [
                e for e in case["expectations"] if (e.get("check") or {}).get("kind") == "absent"
            ]
            results = grade(skill, {**case, "expectations": absent}, REPO)
            failed = [f"{r.text}: {r.detail}" for r in results if r.status != "pass"]
            assert not failed, f"{skill.name}/{case['id']}: " + "; ".join(failed)


@pytest.fixture
def toy(tmp_path: Path) -> tuple[Path, Path]:
    """A skill whose project.md runs the current interpreter, and a tree to grade."""
    skill, root = tmp_path / "toy-skill", tmp_path / "tree"
    (skill / "references").mkdir(parents=True)
    python = sys.executable
    (skill / "references" / "project.md").write_text(
        "## Commands\n\n| key | command | what |\n| --- | --- | --- |\n"
        f"| ok | `{python} -c pass` | exits 0 |\n"
        f"| fails | `{python} -c 'raise SystemExit(3)'` | exits 3 |\n"
    )
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("def lower_generic(kernel):\n    return kernel\n")
    return skill, root


def test_grading(toy: tuple[Path, Path]) -> None:
    skill, root = toy
    case = {
        "expectations": [
            {"text": "exits 0", "check": {"kind": "command", "command": "ok"}},
            {"text": "exits 3", "check": {"kind": "command", "command": "fails", "exit_code": 3}},
            {"text": "wrong code", "check": {"kind": "command", "command": "fails"}},
            {
                "text": "no fast path",
                "check": {"kind": "absent", "pattern": "fast", "paths": ["pkg"]},
            },
            {
                "text": "generic",
                "check": {"kind": "present", "pattern": "def lower_generic", "paths": ["pkg"]},
            },
            {
                "text": "template",
                "check": {"kind": "absent", "pattern": "lower_\\w+", "paths": ["pkg"]},
            },
            {"text": "explained well"},
        ]
    }
    statuses = [result.status for result in grade(skill, case, root)]
    assert statuses == ["pass", "pass", "fail", "pass", "pass", "fail", "judge"]


def test_grading_commands_take_an_environment_and_a_limit(toy: tuple[Path, Path]) -> None:
    _, root = toy
    python = sys.executable
    case = {
        "expectations": [
            {"text": "sees X", "check": {"kind": "command", "command": "env"}},
            {"text": "hangs", "check": {"kind": "command", "command": "slow"}},
        ]
    }
    table = {
        "env": f'{python} -c \'import os, sys; sys.exit(os.environ.get("X") != "1")\'',
        "slow": f"{python} -c 'import time; time.sleep(30)'",
    }
    results = grade(None, case, root, Commands(table, {"X": "1"}, timeout=1))
    assert [r.status for r in results] == ["pass", "fail"]
    assert "timed out after 1 s" in results[1].detail


def test_malformed_cases_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"skill_name": "other", "evals": [{"id": "a", "prompt": "p"}]}))
    problems = validate_file(path, "mine", {"audit": "x"})
    assert any("skill_name" in p for p in problems) and any("needs the keys" in p for p in problems)
    case = {
        "id": "a",
        "prompt": "p",
        "expected_output": "o",
        "setup": {"compiler/x.py": "evals/files/missing.py"},
        "expectations": [
            {"text": "t", "check": {"kind": "command", "command": "nope"}},
            {"text": "t", "check": {"kind": "absent", "pattern": "(", "paths": ["x"]}},
            {"text": "t", "check": {"kind": "telepathy"}},
        ],
    }
    path.write_text(json.dumps({"skill_name": "mine", "evals": [case]}))
    problems = validate_file(path, "mine", {"audit": "x"})
    words = ("nope", "regular", "telepathy", "setup names evals/files/missing.py")
    assert [bool(re.search(word, " ".join(problems))) for word in words] == [True] * 4


def test_the_command_line_lists_cases(capsys) -> None:
    assert main(["list"]) == 0
    assert "suppression-request" in capsys.readouterr().out
    assert main(["grade", "compiler-lowering-audit", "no-such-case"]) == 2
