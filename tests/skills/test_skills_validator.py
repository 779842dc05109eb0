"""The skill validator: every skill of the library passes it; each rule rejects what it should."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skills.evals import SKILLS_DIR, skill_dirs
from skills.validate import main, validate_skill

REQUIRED = {
    "compiler-ir-architecture",
    "compiler-ssa-lowering",
    "compiler-pass-pipeline",
    "compiler-backend-emitter",
    "compiler-lowering-audit",
    "compiler-multibackend-porting",
    "compiler-performance-tuning",
    "compiler-validation-reporting",
}


def test_the_library_has_the_required_skills() -> None:
    assert REQUIRED <= {path.name for path in skill_dirs()}


@pytest.mark.parametrize("skill", skill_dirs(), ids=lambda path: path.name)
def test_every_skill_is_valid(skill: Path) -> None:
    problems = validate_skill(skill)
    assert not problems, "\n".join(map(str, problems))


def test_the_command_line_reports_and_exits(capsys) -> None:
    assert main(["--no-scripts", str(SKILLS_DIR / "compiler-ir-architecture")]) == 0
    assert "1 skills, 0 problems" in capsys.readouterr().out


# -- each rule, on a copy of a valid skill with one defect ----------------------------------------


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    """A writable copy of a valid skill (with a script), renamed to match its new folder."""
    target = tmp_path / "compiler-ir-architecture"
    shutil.copytree(SKILLS_DIR / "compiler-ir-architecture", target)
    return target


def _rules(skill: Path, run_scripts: bool = False) -> set[str]:
    return {problem.rule for problem in validate_skill(skill, run_scripts)}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_the_copy_is_valid(skill: Path) -> None:
    assert _rules(skill, run_scripts=True) == set()


@pytest.mark.parametrize(
    "name",
    ["Compiler-IR", "-compiler", "compiler--ir", "compiler_ir", "x" * 65, "compiler-ssa-lowering"],
)
def test_name_rule(skill: Path, name: str) -> None:
    _edit(skill / "SKILL.md", "name: compiler-ir-architecture", f"name: {name}")
    assert "name" in _rules(skill)


def test_description_rules(skill: Path) -> None:
    _edit(skill / "SKILL.md", "description: Design", "description: " + "x" * 1100 + " Design")
    assert "description" in _rules(skill)
    _edit(skill / "SKILL.md", "Use when adding", "Handy for adding")
    assert "when-to-use" in _rules(skill)


def test_frontmatter_rules(skill: Path) -> None:
    _edit(skill / "SKILL.md", "metadata:", "author: someone\nmetadata:")
    assert "frontmatter" in _rules(skill)
    (skill / "SKILL.md").write_text("# no frontmatter\n")
    assert _rules(skill) == {"frontmatter"}


def test_optional_field_rules(skill: Path) -> None:
    _edit(skill / "SKILL.md", 'version: "1.0"', "version: 1.0")
    _edit(skill / "SKILL.md", "compatibility: Any", "allowed-tools: 3\ncompatibility: Any")
    assert "optional-field" in _rules(skill)


def test_body_length_rule(skill: Path) -> None:
    with (skill / "SKILL.md").open("a") as file:
        file.write("filler\n" * 500)
    assert "body-length" in _rules(skill)


def test_file_reference_rules(skill: Path) -> None:
    _edit(skill / "SKILL.md", "## Checklist", "See `references/missing.md`.\n\n## Checklist")
    assert "file-reference" in _rules(skill)


def test_references_are_one_level_deep(skill: Path) -> None:
    (skill / "scripts" / "__pycache__").mkdir(exist_ok=True)  # left by running scripts: fine
    assert _rules(skill) == set()
    (skill / "references" / "deeper").mkdir()
    assert "file-reference" in _rules(skill)


def test_reference_files_do_not_chain(skill: Path) -> None:
    with (skill / "references" / "granularity.md").open("a") as file:
        file.write("\nMore in [the project](project.md).\n")
    assert "file-reference" in _rules(skill)


def test_orphan_rule(skill: Path) -> None:
    (skill / "references" / "unused.md").write_text("# never linked\n")
    assert "orphan-file" in _rules(skill)


def test_script_rule(skill: Path) -> None:
    script = skill / "scripts" / "op_census.py"
    script.write_text(script.read_text().replace("def main(", "raise SystemExit(3)\n\n\ndef main("))
    assert "script-help" in _rules(skill, run_scripts=True)


def test_project_facts_rule(skill: Path) -> None:
    _edit(skill / "references" / "project.md", "| audit |", "| the-audit |")
    assert "project-facts" in _rules(skill)
    (skill / "references" / "project.md").unlink()
    assert "project-facts" in _rules(skill)


@pytest.mark.parametrize(
    "heading", ["## Decision tree", "## Worked examples", "## Common mistakes"]
)
def test_section_rules(skill: Path, heading: str) -> None:
    _edit(skill / "SKILL.md", heading, "## Something else")
    if heading == "## Decision tree":
        _edit(skill / "SKILL.md", "## Procedure", "## Steps")
    assert "sections" in _rules(skill)


def test_checklist_ends_with_the_audit_and_the_tests(skill: Path) -> None:
    text = (skill / "SKILL.md").read_text()
    last = text.rindex("- [ ] Run the audit")
    (skill / "SKILL.md").write_text(text[:last])
    assert "sections" in _rules(skill)


def test_eval_rules(skill: Path) -> None:
    path = skill / "evals" / "evals.json"
    document = json.loads(path.read_text())
    document["evals"][0]["expectations"] = [{"text": "judged only"}]
    document["evals"][1]["id"] = "Not A Slug"
    document["evals"].append({"id": "x"})
    path.write_text(json.dumps(document))
    assert "evals" in _rules(skill)
    path.unlink()
    assert "evals" in _rules(skill)
