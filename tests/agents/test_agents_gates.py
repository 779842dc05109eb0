"""Gates report findings with file:line and a rule code, from the real tools run in a sandbox; a
pytest gate selects tests by exact parametrize id or by marker, never by substring."""

import dataclasses
import os
import subprocess
import sys

from agent_support import run
from fake_openai import FakeOpenAI, reply

from agents.gates import feedback, run_gates
from agents.gates.pytest_gate import PLUGIN, PLUGIN_DIR
from agents.run import PROJECT_ROOT, TVM_PYTHON
from agents.sandbox import Sandbox
from agents.tasks import GateSpec

FAILING_TEST = "def test_sum():\n    total = 1 + 1\n    assert total == 3\n"
PARAMETRIZED = """
import pytest


@pytest.mark.parametrize("backend", ["c", "cuda", "tvm"])
def test_one(backend):
    assert False


@pytest.fixture(params=[("c", "matmul"), ("cuda", "matmul")], ids=lambda p: f"{p[0]}-{p[1]}")
def pair(request):
    return request.param


def test_pair(pair):
    assert False


@pytest.mark.slow
def test_marked():
    assert False


def test_plain():
    assert False
"""
UNFORMATTED = "x = {'a':1}\n"
SECONDS_LEFT = 600.0  # of the run's time budget, for a gate's second try


def test_pytest_and_ruff_findings_point_at_the_line(context):
    (context.sandbox.root / "notes").mkdir()
    (context.sandbox.root / "notes" / "test_notes.py").write_text(FAILING_TEST)
    (context.sandbox.root / "notes" / "style.py").write_text(UNFORMATTED + "import os\n")
    gates = (
        GateSpec("pytest", "tests", ("notes/test_notes.py", "--no-lowering-audit")),
        GateSpec("ruff", "ruff"),
    )
    tests, ruff = run_gates(gates, context, SECONDS_LEFT)
    assert not tests.passed and not ruff.passed
    assert [(f.path, f.line, f.code) for f in tests.findings] == [
        ("notes/test_notes.py", 3, "TEST")
    ]
    assert {(f.path, f.line, f.code) for f in ruff.findings} == {
        ("notes/style.py", 2, "F401"),
        ("notes/style.py", 2, "E402"),
        ("notes/style.py", 1, "FORMAT"),
    }
    text = feedback([tests, ruff])
    assert text.startswith("Gates: tests FAILED (1 finding), ruff FAILED (3 findings)")
    assert "notes/test_notes.py:3: TEST notes.test_notes::test_sum" in text


def test_a_selection_without_tests_fails(context):
    (context.sandbox.root / "notes").mkdir()
    (context.sandbox.root / "notes" / "test_nothing.py").write_text("VALUE = 1\n")
    selection = ("notes/test_nothing.py", "--no-lowering-audit")
    (result,) = run_gates((GateSpec("pytest", "tests", selection),), context, SECONDS_LEFT)
    assert not result.passed and "ran no test" in result.findings[0].message


def test_an_added_gate_runs_the_test_files_the_model_created(context):
    sandbox = Sandbox.open(context.sandbox.root, (), new_files=("tests/frontend/test_*.py",))
    context = dataclasses.replace(context, sandbox=sandbox)
    gate = GateSpec("pytest", "new-tests", added=True)
    (nothing,) = run_gates((gate,), context, SECONDS_LEFT)
    assert nothing.passed and nothing.ran == "no test file added: nothing to run"
    sandbox.path("tests/frontend/test_added.py", write=True).write_text(FAILING_TEST)
    (judged,) = run_gates((gate,), context, SECONDS_LEFT)
    assert [(f.path, f.line) for f in judged.findings] == [("tests/frontend/test_added.py", 3)]


def _failed(result) -> list[str]:
    return sorted(finding.message.split(": ", 1)[0] for finding in result.findings)


def test_select_takes_exact_parametrize_ids_where_k_takes_substrings(context):
    (context.sandbox.root / "notes").mkdir()
    (context.sandbox.root / "notes" / "test_select.py").write_text(PARAMETRIZED)
    tests = ("notes/test_select.py",)
    exact, substring, marked, none = run_gates(
        (
            GateSpec("pytest", "exact", tests, select=("c",)),
            GateSpec("pytest", "substring", (*tests, "-k", "c")),
            GateSpec("pytest", "marked", (*tests, "-m", "slow")),
            GateSpec("pytest", "none", tests, select=("opencl",)),
        ),
        context,
        SECONDS_LEFT,
    )
    assert _failed(exact) == [
        "notes.test_select::test_one[c]",
        "notes.test_select::test_pair[c-matmul]",
    ]
    assert exact.ran == "2 tests: 0 passed, 2 failed, 0 skipped"
    assert len(_failed(substring)) == 7  # `c` is in every id: test_select holds one
    assert _failed(marked) == ["notes.test_select::test_marked"]
    assert "with parametrize ids `opencl` ran no test" in none.findings[0].message


def test_a_selected_gate_in_a_run_judges_only_the_backend_of_the_change(home):
    script = [
        reply(("finish", {"summary": "nothing yet"})),
        reply(("write_file", {"path": "notes/c.txt", "content": "c"})),
        reply(("finish", {"summary": "registered c"})),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="select")
        feedback_text = server.last_message(1)["content"]
    assert "test_backend_is_registered[c]" in feedback_text
    assert "[cuda]" not in feedback_text  # its test fails as well, and is not this change's
    assert result.status == "green"


def test_on_this_tree_a_backend_s_id_selects_its_items_and_no_other_backend_s():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), str(PLUGIN_DIR)])}
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts="]
    argv += ["-p", "no:cacheprovider", "-p", PLUGIN, "--select-id=tvm"]
    argv += ["--select-id=compiler.backends.tvm.*", "tests/test_suite_backends.py"]
    argv += ["tests/test_imports.py"]
    done = subprocess.run(argv, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    suite = [i for i in ids if i.startswith("tests/test_suite_backends.py::")]
    imports = [i for i in ids if i.startswith("tests/test_imports.py::")]
    kernels = {i.split("[tvm-")[1] for i in suite}
    assert suite and all("[tvm-" in i for i in suite) and len(suite) == 4 * len(kernels)
    assert imports and all("[compiler.backends.tvm." in i for i in imports)
    assert len(suite) + len(imports) == len(ids)


def test_a_skill_that_says_the_only_backend_is_triton_fails_its_gate(home):
    facts = "skills/compiler-multibackend-porting/references/project.md"
    text = (PROJECT_ROOT / facts).read_text()
    listed = text.split("```text every=backends\n", 1)[1].split("\n", 1)[0]
    assert listed.split() != ["triton"]  # there is more than one backend
    stale = {"path": facts, "old": f"every=backends\n{listed}\n", "new": "every=backends\ntriton\n"}
    fixed = {"path": facts, "old": "every=backends\ntriton\n", "new": f"every=backends\n{listed}\n"}
    script = [
        reply(("replace_in_file", stale), ("finish", {"summary": "Triton only"})),
        reply(("replace_in_file", fixed), ("finish", {"summary": "every backend"})),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="lists")
        feedback_text = server.last_message(1)["content"]
    missing = ", ".join(sorted(set(listed.split()) - {"triton"}))
    assert f"the list of all backends omits {missing}" in feedback_text
    assert result.status == "green"


def test_the_behaviour_gate_reports_a_structure_keyed_decision_at_its_kernel(context):
    """A schedule keyed by softmax's argument count (no name in sight) fails the gate, with the
    kernel, backend and configuration as the place."""
    schedule = context.sandbox.root / "compiler/backends/triton/schedule.py"
    text = schedule.read_text()
    chosen = "        before = {key: kernel.attrs.get(key) for key in chosen}\n"
    keyed = "        if len(kernel.args) == 10:\n            chosen['num_warps'] = 2\n"
    schedule.write_text(text.replace(chosen, keyed + chosen))
    args = ("--backend", "triton", "--kernel", "softmax", "--configuration", "given")
    (gate,) = run_gates((GateSpec("behaviour", "behaviour", args),), context, SECONDS_LEFT)
    assert not gate.passed
    assert {(f.path, f.line, f.code) for f in gate.findings} == {
        ("behaviour/triton/softmax/given", 1, "LWB005")
    }
    assert "behaviour/triton/softmax/given:1: LWB005 the unused rewrite" in feedback([gate])


def test_the_conformance_gate_runs_one_op_on_every_backend(context):
    """add-op's first gate: the conformance kernels of the op it names, and nothing else."""
    spec = GateSpec(
        "pytest", "conformance", ("tests/ir/test_op_conformance.py",), select=("arith.sub",)
    )
    env = {**context.env, "TRITON_INTERPRET": "1"}
    if TVM_PYTHON.is_file():  # as a run's gates have it: a sandbox has no .venv-tvm
        env["NTC_TVM_PYTHON"] = str(TVM_PYTHON)
    (gate,) = run_gates((spec,), dataclasses.replace(context, env=env), SECONDS_LEFT)
    assert gate.passed, gate.output
    assert gate.ran.startswith("4 tests: 4 passed"), gate.ran
