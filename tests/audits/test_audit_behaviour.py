"""The behavioural audits over the real compiler: clean on the suite × every backend × both
configurations; the renaming really renames; emitted code does not depend on the hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import libcst as cst
from audit_support import REPOSITORY

from audits.behaviour.audit import CHECKS, audit_behaviour
from audits.behaviour.cases import suite_cases
from audits.behaviour.renaming import rename_program
from audits.behaviour.structure import REWRITES, rewrite
from compiler.backends import TARGETS
from compiler.suite import SUITE


def test_every_check_is_clean_on_the_suite_for_every_backend_and_configuration():
    findings = audit_behaviour(suite_cases(), sorted(TARGETS), checks=CHECKS, seed=11)
    assert [finding.as_text() for finding in findings] == []


def test_the_renaming_reaches_every_name_the_author_chose(tmp_path):
    case = next(case for case in suite_cases(["softmax"]))
    renamed = rename_program(case.path, tmp_path, package=case.package, extra_names=["softmax"])
    text = renamed.path.read_text()
    module = cst.parse_module(text)
    assert renamed.path.stem == renamed.mapping["softmax"]  # the file (and module) too
    for name in ("arrangement", "application", "tensors", "input", "output", "BLOCK_SIZE"):
        assert name not in text.replace("ntl.", ""), name
    assert repr(renamed.mapping["BLOCK_SIZE"]) in text  # Symbol("BLOCK_SIZE") renamed
    assert "softmax" not in text.lower()  # the docstring was replaced
    assert module.code == text


def test_the_renaming_is_random_unless_seeded(tmp_path):
    case = suite_cases(["vector_add"])[0]
    maps = []
    for number, seed in enumerate((1, 1, None)):
        folder = tmp_path / str(number)
        folder.mkdir()
        maps.append(rename_program(case.path, folder, package=case.package, seed=seed).mapping)
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
