"""The behavioural audits on corpora whose programs are written inside their tests: each kernel a
test calls, recorded by running the test (`audits/behaviour/recorded.py`), renamed with the tests
package, clean on every backend; a planted name-dependence in a copy of the compiler is caught."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
from audit_support import REPOSITORY, copy_project

from audits.behaviour.audit import CHECKS, audit_behaviour
from audits.behaviour.recorded import recorded_cases
from audits.behaviour.recording import record
from audits.behaviour.renaming import rename_package
from compiler.backends import TARGETS
from compiler.compat.corpus import default_corpus

CORPUS = REPOSITORY / "tests" / "fixtures" / "recorded_corpus"
COMPAT_LIBRARY = REPOSITORY / "tests" / "fixtures" / "compat_library"
NINETOOTHED_TESTS = default_corpus("ninetoothed-tests-*.tar.gz")
CHECKED = [check for check in CHECKS if check != "imports"]  # the suite's test covers imports


def test_each_kernel_a_test_calls_is_a_case_and_each_test_not_run_says_why():
    notes = []
    cases = recorded_cases(CORPUS, note=notes.append)
    assert [case.name for case in cases] == [
        "test_rows::test_row_max_of_abs",
        "test_rows::test_row_max_of_abs#1",  # the second kernel the test calls
        "test_scaled_sum::test_scaled_sum",
    ]
    scaled = cases[2]
    lhs, rhs, scale, out = scaled.make_args()
    assert lhs.shape == rhs.shape == out.shape == (37, 70) and scale == 0.5  # first parameters
    assert scaled.call_kwargs == {"ROWS": 32, "COLUMNS": 64}
    assert set(cases[1].call_kwargs) == {"input", "output"}  # called by keyword
    assert any("tests.test_broken: does not import" in note for note in notes), notes
    assert any("test_needs_a_fixture: needs the fixture(s) tmp_path" in note for note in notes)


def test_kernels_are_chosen_by_case_test_or_module():
    assert len(recorded_cases(CORPUS, ["test_rows"])) == 2
    assert len(recorded_cases(CORPUS, ["test_rows::test_row_max_of_abs#1"])) == 1
    with pytest.raises(KeyError, match="no recorded kernel named test_nothing; known: test_rows"):
        recorded_cases(CORPUS, ["test_nothing"])


def test_every_check_is_clean_on_kernels_written_in_tests():
    findings = audit_behaviour(recorded_cases(CORPUS), sorted(TARGETS), checks=CHECKED, seed=21)
    assert [finding.as_text() for finding in findings] == []


def test_every_check_is_clean_on_ninetoothed_s_own_tests():
    """NineToothed's suite, the specification of its API: programs in test functions, a class
    with static methods, keywords through functools.partial, block sizes made at import."""
    cases = recorded_cases(NINETOOTHED_TESTS)
    assert len(cases) >= 15
    configurations = ["given", "candidates"]  # `scheduled` would repeat `given` here
    findings = audit_behaviour(
        cases, sorted(TARGETS), configurations=configurations, checks=CHECKED, seed=22
    )
    assert [finding.as_text() for finding in findings] == []


def test_every_kernel_ntops_tests_call_is_clean_renamed_with_the_library():
    """ntops' tests call its library, renamed with them: aliases of its functions called with
    keywords, random sizes drawn in the tests (seeded alike in both runs)."""
    notes = []
    cases = recorded_cases(default_corpus(), note=notes.append)
    assert len(cases) >= 100 and notes == []
    findings = audit_behaviour(cases, ["triton"], checks=CHECKED, seed=23)
    assert [finding.as_text() for finding in findings] == []


def test_a_renamed_tests_package_still_makes_the_same_kernels(tmp_path):
    case = recorded_cases(CORPUS, ["test_rows"])[0]
    renamed = rename_package(case.folder, case.package, tmp_path, seed=3)
    text = renamed.file(case.path).read_text()
    # What a class body binds, its methods' parameters and any function of those names keep
    # their names (reached as attributes and keywords); everything else the author chose does not.
    assert "def arrangement(input, output, columns" in text
    assert "RowMax.premake" not in text and "row_max_of_abs" not in text
    assert "_kernels" not in text and "WIDTH" not in text
    run = record((renamed.directory, *case.import_paths), case.test, rename=renamed.name)
    assert len(run.kernels) == 2, run.stopped


def test_a_corpus_s_library_is_renamed_with_its_tests(tmp_path):
    """The compat fixture's kernels are its library's (`tinylib`), which the tests call: the
    renamed tests import the renamed library, whose programs are renamed too."""
    (case,) = recorded_cases(COMPAT_LIBRARY, ["test_scale::test_scale"])
    ((folder, name),) = case.companions()
    assert name == "tinylib"
    renamed = rename_package(case.folder, case.package, tmp_path, seed=3, others=((folder, name),))
    library = renamed.file(folder / "ops.py").read_text()
    assert "def scaled(" not in library and "def arrangement(" not in library
    assert renamed.name("tinylib") in renamed.file(case.path).read_text()
    run = record((renamed.directory, *case.import_paths), case.test, rename=renamed.name)
    (kernel,) = run.kernels
    assert kernel.program[1].__module__ == renamed.module("tinylib.ops")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def test_a_kernel_name_read_in_the_emitter_is_caught_on_a_test_written_kernel(tmp_path):
    """The emitter of a copy of the compiler treats the kernel whose name hashes to that of the
    fixture's `scaled_sum_kernel` differently: the identity check names the test's case."""
    copy_project(tmp_path)
    emitter = tmp_path / "compiler/backends/emitter.py"
    find = "    return _Emitter(kernel, target, ssa).run()\n"
    text = emitter.read_text()
    assert find in text
    emitter.write_text(
        text.replace(
            find,
            "    text = _Emitter(kernel, target, ssa).run()\n"
            f"    known = hashlib.sha256(kernel.name.encode()).hexdigest()[:12] == "
            f"{_digest('scaled_sum_kernel')!r}\n"
            "    return text.replace('\\n', '\\n\\n', 1) if known else text\n",
        )
    )
    command = [sys.executable, "-m", "audits", "behaviour", "--corpus", str(CORPUS)]
    command += ["--kernel", "test_scaled_sum", "--backend", "triton", "--check", "identity"]
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [*command, "--seed", "7"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    assert "behaviour/triton/test_scaled_sum::test_scaled_sum/given" in done.stdout
    assert "LWB001" in done.stdout and "emitter" in done.stdout


def test_the_cli_takes_the_tests_of_any_corpus():
    """`--tests` records from a corpus's tests even where the project knows its library; without
    `--corpus` it is refused with the fix."""
    base = [sys.executable, "-m", "audits", "behaviour"]
    done = subprocess.run([*base, "--tests"], cwd=REPOSITORY, capture_output=True, text=True)
    assert done.returncode == 2 and "give --corpus too" in done.stderr
    command = [*base, "--corpus", str(CORPUS), "--tests", "--kernel", "test_rows"]
    command += ["--backend", "cuda", "--check", "identity", "--check", "provenance"]
    done = subprocess.run(command, cwd=REPOSITORY, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert "cuda test_rows::test_row_max_of_abs (given)" in done.stderr
