"""The behavioural audits over the real compiler: clean on the suite × every backend × both
configurations; the renaming really renames; emitted code does not depend on the hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from audit_support import REPOSITORY

from audits.behaviour.audit import CHECKS, audit_behaviour
from audits.behaviour.cases import library_cases, suite_cases
from audits.behaviour.renaming import rename_package
from audits.behaviour.structure import REWRITES, rewrite
from compiler.backends import TARGETS
from compiler.compat.corpus import default_corpus
from compiler.suite import SUITE


def test_every_check_is_clean_on_the_suite_for_every_backend_and_configuration():
    findings = audit_behaviour(suite_cases(), sorted(TARGETS), checks=CHECKS, seed=11)
    assert [finding.as_text() for finding in findings] == []


def test_the_schedules_autotuning_would_time_are_clean_too():
    """On CPU targets the tile cap leaves one candidate (the rule's); Triton's have several."""
    findings = audit_behaviour(
        suite_cases(), ["triton"], configurations=["candidates"], checks=CHECKS, seed=13
    )
    assert [finding.as_text() for finding in findings] == []


def test_every_check_is_clean_on_the_ntops_kernels_for_every_backend_and_configuration():
    """Code written elsewhere: ntops' kernels, made by its own premake, renamed as a package."""
    cases = library_cases(default_corpus())
    assert len(cases) >= 15
    checks = [check for check in CHECKS if check != "imports"]  # the suite test covers imports
    findings = audit_behaviour(cases, sorted(TARGETS), checks=checks, seed=12)
    assert [finding.as_text() for finding in findings] == []


def test_the_renaming_reaches_every_name_the_author_chose(tmp_path):
    case = suite_cases(["softmax"])[0]
    renamed = rename_package(case.folder, case.package, tmp_path, extra_names=["softmax"])
    path = renamed.file(case.path)
    text = path.read_text()
    assert path.stem == renamed.mapping["softmax"]  # the file (and module) too
    assert path.parent.name == renamed.new_package != "programs"
    for name in ("arrangement", "application", "tensors", "input", "output", "BLOCK_SIZE"):
        assert name not in text.replace("ntl.", ""), name
    assert repr(renamed.mapping["BLOCK_SIZE"]) in text  # Symbol("BLOCK_SIZE") renamed
    assert "softmax" not in text.lower()  # the docstring was replaced


def test_a_library_renamed_as_a_package_keeps_working(tmp_path):
    """ntops renamed whole: its modules, imports through the package, keywords through
    functools.partial; builtins its modules' names shadow elsewhere (max, abs) stay builtins."""
    case = library_cases(default_corpus(), ["ntops.add"])[0]
    renamed = rename_package(case.folder, case.package, tmp_path, seed=5)
    element_wise = renamed.file(case.folder / "kernels" / "element_wise.py").read_text()
    assert "max(" in element_wise and "ntops" not in element_wise
    add = renamed.file(case.path).read_text()
    assert f"from {renamed.module('ntops.kernels.element_wise')} import " in add
    assert f"{renamed.mapping['block_size']}={renamed.mapping['block_size']}" in add


def test_the_renaming_is_random_unless_seeded(tmp_path):
    case = suite_cases(["vector_add"])[0]
    maps = []
    for number, seed in enumerate((1, 1, None)):
        folder = tmp_path / str(number)
        folder.mkdir()
        maps.append(rename_package(case.folder, case.package, folder, seed=seed).mapping)
    assert maps[0] == maps[1] != maps[2]


def test_each_rewrite_applies_somewhere_and_keeps_the_program_compiling(tmp_path):
    applied = {kind: [] for kind in REWRITES}
    for case in suite_cases():
        for kind in REWRITES:
            if rewrite(case, kind, tmp_path) is not None:
                applied[kind].append(case.name)
    assert all(applied.values()), applied


def test_the_cli_exits_zero_on_a_clean_kernel():
    done = subprocess.run(
        [sys.executable, "-m", "audits", "behaviour", "--kernel", "vector_add", "--format", "json"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["findings"] == []
    assert "tvm vector_add (scheduled)" in done.stderr  # progress, per step


_HASHES = """
import json
from audits.trace.suite import compile_suite
artifacts = compile_suite()[0]
print(json.dumps({b: {k: a.ssa_hash for k, a in by.items()} for b, by in artifacts.items()}))
"""


def test_emitted_code_does_not_depend_on_the_hash_seed():
    """Names (and so sets of names) hash differently under each PYTHONHASHSEED: the SSA of every
    suite kernel must come out the same under each."""
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _HASHES],
            cwd=REPOSITORY,
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            text=True,
        )
        for seed in ("1", "2")
    ]
    first, second = (json.loads(run.communicate(timeout=120)[0]) for run in runs)
    assert {backend: set(by) for backend, by in first.items()} == {b: set(SUITE) for b in TARGETS}
    assert first == second
