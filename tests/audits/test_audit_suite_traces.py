"""The pass-trace audit on the real compiler: every suite kernel on every backend present."""

from __future__ import annotations

import copy
import dataclasses

import pytest

import compiler.backends.registry as backend_registry
from audits import cli
from audits.trace import audit_traces
from audits.trace.audit import DECOMPOSITION_PASS, INTRINSIC_PASS
from audits.trace.suite import compile_suite
from compiler.backends import TARGETS
from compiler.suite import SUITE
from compiler.suite.checking import build


@pytest.fixture(scope="module")
def compiled():
    artifacts, targets, failures = compile_suite()
    assert failures == []
    return artifacts, targets


def _as_dicts(artifacts: dict) -> dict:
    """Plain copies of the compiler's artifacts, for planting violations into."""
    return {
        backend: {
            name: copy.deepcopy(dataclasses.asdict(artifact)) for name, artifact in by.items()
        }
        for backend, by in artifacts.items()
    }


def test_every_suite_kernel_on_every_backend_passes_the_trace_audit(compiled):
    artifacts, targets = compiled
    assert {backend: set(by) for backend, by in artifacts.items()} == {
        backend: set(SUITE) for backend in TARGETS
    }
    assert audit_traces(artifacts, targets) == []


def test_the_level_checks_cover_the_passes_after_intrinsic_lowering(compiled):
    artifacts, _ = compiled
    for by in artifacts.values():
        for artifact in by.values():
            names = [entry["pass"] for entry in artifact.trace]
            assert names.index(DECOMPOSITION_PASS) < names.index(INTRINSIC_PASS) < len(names) - 1


def _plant_linalg_dot(artifact: dict) -> None:
    last = artifact["trace"][-1]
    last["op_counts"]["linalg.dot"] = 1
    last["op_count_delta"]["linalg.dot"] = 1


def _plant_illegal_op(artifact: dict) -> None:
    last = artifact["trace"][-1]
    last["op_counts"]["index.meta"] = 1  # no target spells it: the schedule binds it
    last["op_count_delta"]["index.meta"] = 1


def _drop_last_pass(artifact: dict) -> None:
    artifact["trace"].pop()


def _edit_ssa(artifact: dict) -> None:
    artifact["ssa"] = artifact["ssa"].replace("%0", "%00", 1)


# (plant, kernel, code): a violation planted into a copy of a real artifact is caught
PLANTS = [
    (_plant_linalg_dot, "vector_add", "LWT003"),  # a kernel without dots gains one: level rose
    (_plant_illegal_op, "softmax", "LWT004"),  # an illegal op after the final canonicalize
    (_drop_last_pass, "rms_norm", "LWT001"),
    (_edit_ssa, "matmul", "LWT005"),
]


@pytest.mark.parametrize(
    ("plant", "kernel", "code"), PLANTS, ids=lambda p: getattr(p, "__name__", p)
)
def test_violations_planted_into_real_artifacts_are_caught(compiled, plant, kernel, code):
    artifacts, targets = compiled
    planted = _as_dicts(artifacts)
    for by in planted.values():
        plant(by[kernel])
    findings = audit_traces(planted, targets)
    assert {f.path.split("/")[-1] for f in findings} == {kernel}, plant.__name__
    # Every backend's copy is caught by the rule; a plant may also trip a second rule (a target
    # whose final canonicalize changes the IR notices a dropped pass twice).
    assert {f.path.split("/")[1] for f in findings if f.code == code} == set(targets)


def test_dots_must_go_where_the_target_decomposes_them(compiled):
    """Audited against a target without `linalg.dot`, a trace that kept its dots is flagged."""
    artifacts, targets = compiled
    without_dot = {
        backend: dataclasses.replace(target, legal_ops=target.legal_ops - {"linalg.dot"})
        for backend, target in targets.items()
    }
    findings = audit_traces(artifacts, without_dot)
    # A target without tile values takes dots through its loops whatever its table says.
    kept = {
        (backend, name)
        for backend, by in artifacts.items()
        if "linalg.dot" not in without_dot[backend].legal_ops
        for name, artifact in by.items()
        if any(
            "linalg.dot" in entry["ir"]
            for entry in artifact.trace
            if entry["pass"] == DECOMPOSITION_PASS
        )
    }
    assert ("triton", "matmul") in kept
    assert {tuple(f.path.split("/")[1:]) for f in findings} == kept
    assert {f.code for f in findings} == {"LWT003", "LWT004"}
    level = [f for f in findings if f.code == "LWT003"]
    assert all(f"{DECOMPOSITION_PASS} (at {DECOMPOSITION_PASS})" in f.message for f in level)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_target_that_lacks_dots_gets_them_decomposed(monkeypatch, backend):
    target = TARGETS[backend]
    without_dot = dataclasses.replace(target, legal_ops=target.legal_ops - {"linalg.dot"})
    monkeypatch.setitem(backend_registry.DEVICE_TARGETS, (backend, "cpu"), without_dot)
    kernel = SUITE["matmul"]
    artifact = build(kernel, backend).compile(*kernel.make_args(0), **kernel.call_kwargs)
    assert "linalg." not in artifact.ssa
    assert audit_traces({backend: {"matmul": artifact}}, {backend: without_dot}) == []


def test_cli_audits_the_suite(capsys):
    assert cli.main(["traces", "--suite", "--kernel", "vector_add", "--kernel", "sum_1d"]) == 0
    assert capsys.readouterr().out == "lowering-audit: findings 0\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["traces", "--suite", "--kernel", "no_such_kernel"],
        ["traces", "--suite", "--backend", "no_such_backend"],
        ["traces", "traces.json", "--kernel", "vector_add"],
    ],
)
def test_cli_rejects_what_it_cannot_audit(argv, capsys):
    assert cli.main(argv) == 2
    assert "lowering-audit: " in capsys.readouterr().err
