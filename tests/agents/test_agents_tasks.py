"""Every task in agents/tasks/ loads, names known gate kinds and skills, and checks its params."""

import pytest

from agents.errors import AgentError
from agents.gates import check_kinds
from agents.run import PROJECT_ROOT
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
