"""Gates report findings with file:line and a rule code, from the real tools run in a sandbox."""

import sys

import pytest

from agents.gates import GateContext, feedback, run_gates
from agents.run import PROJECT_ROOT
from agents.sandbox import Sandbox
from agents.tasks import GateSpec

FAILING_TEST = "def test_sum():\n    total = 1 + 1\n    assert total == 3\n"
UNFORMATTED = "x = {'a':1}\n"


@pytest.fixture
def context(tmp_path):
    sandbox = Sandbox.create(PROJECT_ROOT, tmp_path / "sandbox", "HEAD", allow=())
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(sandbox.root), "PYTHONDONTWRITEBYTECODE": "1"}
    return GateContext(sandbox, sys.executable, env, tmp_path)


def test_pytest_and_ruff_findings_point_at_the_line(context):
    (context.sandbox.root / "notes").mkdir()
    (context.sandbox.root / "notes" / "test_notes.py").write_text(FAILING_TEST)
    (context.sandbox.root / "notes" / "style.py").write_text(UNFORMATTED + "import os\n")
    gates = (
        GateSpec("pytest", "tests", ("notes/test_notes.py", "--no-lowering-audit")),
        GateSpec("ruff", "ruff"),
    )
    tests, ruff = run_gates(gates, context)
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
    (result,) = run_gates((GateSpec("pytest", "tests", selection),), context)
    assert not result.passed and "ran no test" in result.findings[0].message
