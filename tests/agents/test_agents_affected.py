"""An `affected` pytest gate runs the tests a change touches, never a whole folder for a one-file
change; the task prompt lists every gate with what it runs and its typical time."""

import dataclasses

import pytest

from agents.gates import run_gates
from agents.gates.affected import select
from agents.gates.describe import describe
from agents.prompts import system_prompt
from agents.run import PROJECT_ROOT
from agents.sandbox import Sandbox
from agents.tasks import GateSpec, load_task, task_names

IR_GATE = ("tests/ir", "tests/backends", "tests/test_imports.py")
SECONDS_LEFT = 600.0
IMPORTS_PRINTER = "from compiler.ir.printer import print_kernel\n\n\ndef test_a():\n    assert 0\n"
IMPORTS_NOTHING = "def test_b():\n    assert 0\n"
REACHING = """
import pytest
from pkg.changed import used
from pkg.other import unrelated

CASES = [used(1)]


def helper():
    return used(2)


@pytest.fixture
def made():
    return helper()


def test_direct():
    used(0)


def test_helper():
    helper()


@pytest.mark.parametrize("case", CASES)
def test_constant(case):
    pass


def test_fixture(made):
    pass


def test_untouched():
    unrelated()


class TestGroup:
    def test_method(self):
        helper()
"""
NAMES_THE_OP = "OP = 'scan.prod'\n\n\ndef test_c():\n    assert 0\n"


def test_a_one_file_change_selects_the_tests_that_use_it_not_the_folders():
    selection = select(PROJECT_ROOT, IR_GATE, ["compiler/ir/interpreter.py"], ())
    assert selection.ids == ("compiler.ir.interpreter",) and not selection.whole_files
    files = {test.split("::")[0] for test in selection.tests}
    every = len(list((PROJECT_ROOT / "tests/backends").glob("test_*.py")))
    assert 0 < len(files) < every
    # of a file that imports the interpreter as its oracle, the tests that call it, no others
    oracle = [t for t in selection.tests if t.startswith("tests/backends/test_tilelang_target.py")]
    assert oracle == [
        "tests/backends/test_tilelang_target.py::test_cuda_form_ir_matches_torch_in_the_interpreter"
    ]


def test_a_mention_a_data_file_read_beside_and_a_package_select_their_tests():
    mentioned = select(PROJECT_ROOT, IR_GATE, [], ("scan.sum",))
    assert mentioned.whole_files == ("tests/ir/test_op_conformance.py",)  # its one file naming it
    data = select(PROJECT_ROOT, IR_GATE, ["tests/ir/roundtrip_new.mlir"], ())
    assert data.whole_files == ("tests/ir/test_ir_text.py",)  # "roundtrip*.mlir" reads it
    package = select(PROJECT_ROOT, IR_GATE, ["compiler/backends/c/__init__.py"], ())
    assert package.ids == ("compiler.backends.c",)  # test_imports' id of the new package


def test_a_test_reaches_a_name_through_helpers_constants_and_fixtures(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(REACHING)
    selection = select(tmp_path, ("tests",), ["pkg/changed.py"], ())
    assert selection.tests == tuple(
        f"tests/test_x.py::{name}"
        for name in ("test_direct", "test_helper", "test_constant", "test_fixture", "test_method")
    )


def test_the_gate_runs_only_the_tests_the_change_touches(context):
    root = context.sandbox.root
    (root / "notes").mkdir()
    for name, text in (("a", IMPORTS_PRINTER), ("b", IMPORTS_NOTHING), ("c", NAMES_THE_OP)):
        (root / "notes" / f"test_{name}.py").write_text(text)
    context.sandbox.commit("tests that fail, none of them the change's")
    context = dataclasses.replace(context, sandbox=Sandbox.open(root, ()))
    gate = GateSpec("pytest", "ir", ("notes", "--no-lowering-audit"), affected=True)
    (untouched,) = run_gates((gate,), context, SECONDS_LEFT)
    assert untouched.passed and untouched.ran.startswith("no test to run")
    printer = root / "compiler" / "ir" / "printer.py"
    printer.write_text(printer.read_text() + "\n# a change\n")
    (touched,) = run_gates((gate,), context, SECONDS_LEFT)
    assert [f.message.split(": ")[0] for f in touched.findings] == ["notes.test_a::test_a"]
    named = GateSpec("pytest", "ir", gate.args, affected=True, mentions=("scan.prod",))
    (both,) = run_gates((named,), context, SECONDS_LEFT)
    assert sorted(f.path for f in both.findings) == ["notes/test_a.py", "notes/test_c.py"]


@pytest.mark.parametrize("name", task_names())
def test_the_prompt_lists_each_gate_with_what_it_runs_and_its_typical_time(name):
    task = load_task(name)
    prompt = system_prompt(task, {})
    for gate in task.gates:
        line = f"- {describe(gate)}"
        assert line in prompt
        measured = gate.typical is not None and "about" in line
        assert measured or gate.kind == "success" or gate.added, f"{name}: {gate.name}"


def test_no_gate_runs_a_whole_test_folder_but_the_skills_claims():
    """A folder of tests runs only through a selection (ids or `affected`); `tests/skills` checks
    what the skills claim, which a change to any skill's text can break, and runs whole."""
    for name in task_names():
        for gate in load_task(name).gates:
            folders = [a for a in gate.args if (PROJECT_ROOT / a).is_dir()]
            if gate.kind == "pytest" and folders not in ([], ["tests/skills"]):
                assert gate.affected or gate.select, f"{name}: {gate.name} runs {folders}"
