"""Rename audit: renaming every identifier of a suite program changes nothing the compiler emits,
for every backend, once the new names are mapped back to the old ones; nor does the hash seed that
orders sets of names."""

from __future__ import annotations

import functools
import inspect
import json
import os
import re
import subprocess
import sys

import pytest
from audit_renaming import importable, rename_program, restore_names
from audit_support import REPOSITORY

import compiler.dsl
from compiler.backends import TARGETS
from compiler.suite import SUITE, SuiteKernel, load_program
from compiler.suite.checking import build

_SSA_HASH = re.compile(r"ssa-sha256: [0-9a-f]{64}")


def _emitted(artifact, mapping: dict[str, str] | None = None) -> dict[str, object]:
    """What the compiler produced, new names mapped back; the SSA hash line covers the names, so
    it is left out (the trace audit checks it)."""

    def text(value: object) -> str:
        value = _SSA_HASH.sub("ssa-sha256: <hash>", str(value))
        return restore_names(value, mapping) if mapping else value

    fields = ("initial_ssa", "ssa", "source", "grid", "args", "schedule")
    return {field: text(getattr(artifact, field)) for field in fields}


def _build_renamed(kernel: SuiteKernel, backend: str, tmp_path):
    path, mapping = rename_program(kernel.path, tmp_path)
    with importable(tmp_path):
        module = load_program(path, compiler.dsl)
    arrange = getattr(module, mapping["arrangement"])
    bound = {mapping[name]: value for name, value in kernel.arrangement_kwargs.items()}
    arrangement = functools.update_wrapper(functools.partial(arrange, **bound), arrange)
    application = getattr(module, mapping["application"])
    tensors = getattr(module, mapping["tensors"])
    handle = compiler.dsl.make(arrangement, application, tensors, backend=backend)
    handle.kernel_name = kernel.name
    parameters = inspect.signature(application).parameters
    call_kwargs = {
        mapping[key] if mapping.get(key) in parameters else key: value
        for key, value in kernel.call_kwargs.items()
    }
    return handle, mapping, call_kwargs


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("name", sorted(SUITE))
def test_renaming_identifiers_changes_nothing_emitted(name: str, backend: str, tmp_path):
    kernel = SUITE[name]
    args = kernel.make_args(0)
    original = build(kernel, backend).compile(*args, **kernel.call_kwargs)
    handle, mapping, call_kwargs = _build_renamed(kernel, backend, tmp_path)
    renamed = handle.compile(*args, **call_kwargs)
    assert {"arrangement", "application", "tensors"} <= set(mapping)
    assert _emitted(renamed, mapping) == _emitted(original)
    assert any(new in renamed.source for new in mapping.values())  # the renaming got through


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
