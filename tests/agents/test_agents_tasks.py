"""Every task in agents/tasks/ loads, names known gate kinds and skills, and checks its params."""

import re

import pytest

from agents.commands import allowlist, checked
from agents.errors import AgentError
from agents.gates import check_kinds
from agents.prompts import system_prompt, task_prompt
from agents.run import PROJECT_ROOT
from agents.sandbox import Sandbox
from agents.skills import load_skills
from agents.tasks import load_task, task_names

REQUIRED = {"add-backend", "add-pass", "add-op", "port-kernel", "fix-audit"}


def test_the_issue_s_tasks_exist():
    assert REQUIRED <= set(task_names())


@pytest.mark.parametrize("name", task_names())
def test_task_is_complete(name):
    task = load_task(name)
    check_kinds(task.gates, name)
    kinds = [gate.kind for gate in task.gates]
    assert kinds[:2] == ["ruff", "audit"] and kinds[-1] == "success"
    assert set(task.skills) <= set(load_skills(PROJECT_ROOT))
    assert "{" not in task.prompt  # every parameter was substituted
    assert all(source.is_file() for _, source in task.setup)


def test_parameters_are_substituted_and_validated():
    task = load_task("add-backend", {"BACKEND": "opencl"})
    assert "compiler/backends/opencl/" in task.prompt
    assert ("--backend", "opencl") == next(g.args for g in task.gates if g.kind == "traces")
    with pytest.raises(AgentError, match="must match"):
        load_task("add-backend", {"BACKEND": "../x"})
    with pytest.raises(AgentError, match="takes no parameter"):
        load_task("add-backend", {"KERNEL": "x"})
    with pytest.raises(AgentError, match="no task 'nope'; tasks: add-backend"):
        load_task("nope")


def test_add_backend_gates_select_the_new_backend_s_tests_exactly_and_last_all_of_them():
    gates = load_task("add-backend", {"BACKEND": "c"}).gates
    imports = next(gate for gate in gates if gate.name == "imports")
    assert imports.args == ("tests/test_imports.py",)  # no `-k c`, which matches every test
    assert imports.select == (
        "compiler.backends.c",
        "compiler.backends.c.*",
        "compiler.runtime.c_*",
    )
    *_, last, success = gates
    assert (last.kind, last.args, last.select) == ("pytest", ("tests",), ("c",))
    assert success.kind == "success"


NEW_TESTS_ROW = re.compile(r"^\| new tests when a change adds an? (\w+)\b[^|]*\|(.*)\|\s*$", re.M)


def new_test_paths(skill) -> dict[str, list[str]]:
    """What a skill's project.md tells a model to add as new test files, by what the change adds:
    its `| new tests when a change adds a <kind> ... | `path`, ... |` rows."""
    text = (PROJECT_ROOT / skill.folder / "references" / "project.md").read_text()
    found: dict[str, list[str]] = {}
    for kind, cell in NEW_TESTS_ROW.findall(text):
        found.setdefault(kind, []).extend(re.findall(r"`([^`]+)`", cell))
    return found


@pytest.mark.parametrize("name", task_names())
def test_a_task_lets_a_model_write_the_tests_its_skills_ask_for_and_only_those(name):
    task = load_task(name)
    skills = load_skills(PROJECT_ROOT)
    asked = sorted(
        {path for skill in task.skills for path in new_test_paths(skills[skill]).get(task.adds, [])}
    )
    assert sorted(task.writable) == asked, (
        f"{name} adds a {task.adds or 'nothing'}: its recommended skills ask for new test files at "
        f"{asked}, and it lets a model write {list(task.writable)}"
    )
    prompt = system_prompt(task, skills)
    assert ("lets you create (not change) files at" in prompt) == bool(task.writable)
    assert all(glob in prompt for glob in task.writable)
    if task.writable:  # and a gate runs them
        assert any(gate.kind == "pytest" for gate in task.gates)


def test_the_new_test_rows_name_what_tasks_add():
    skills = load_skills(PROJECT_ROOT)
    kinds = {kind for skill in skills.values() for kind in new_test_paths(skill)}
    assert kinds == {"op", "pass", "kernel"}
    assert {load_task(name).adds for name in task_names()} >= kinds


PROMPT_COMMAND = re.compile(r"`((?:python|ntc|pytest|make) [^`]+)`")


@pytest.mark.parametrize("name", task_names())
def test_every_command_a_task_prompt_names_is_one_its_run_tool_allows(name, tmp_path):
    """A prompt that says `python -m X` runs something must not have it refused."""
    task = load_task(name)
    sandbox = Sandbox.create(PROJECT_ROOT, tmp_path / "sandbox", "HEAD", allow=())
    allowed = allowlist(task.commands, sandbox.root, task.scratch)
    for command in PROMPT_COMMAND.findall(f"{task.prompt}\n{task_prompt(task)}"):
        assert checked(command.replace("NAME", "proof"), allowed, sandbox), command
