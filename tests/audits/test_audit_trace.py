"""The pass-trace audit on synthetic artifacts in the compiler's trace format."""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from audits import cli
from audits.trace import audit_traces
from audits.trace.ir_ops import ops_in_ir

PIPELINE = (
    ("ssa.canonicalize", "hardware-independent"),
    ("ssa.analyze_effects", "hardware-independent"),
    ("ssa.select_schedule", "hardware-dependent"),
    ("ssa.{backend}.optimize_schedule", "backend-specific"),
    ("ssa.decompose_linalg", "hardware-independent"),
    ("ssa.lower_memory_scopes", "hardware-dependent"),
    ("ssa.lower_backend_intrinsics", "hardware-dependent"),
)
HIGH_IR = """kernel @k(%0: buffer<f32>, %1: buffer<f32>, %2: buffer<f32>) {
  %3 = index.program_id() {axis = 0} : index
  %4 = mem.load(%0, %3) : tile<f32[16, 16]>
  %5 = mem.load(%1, %3) : tile<f32[16, 16]>
  %6 = linalg.dot(%4, %5) {dtype = f32} : tile<f32[16, 16]>
  mem.store(%2, %3, %6)
}
"""
LOW_IR = HIGH_IR.replace(
    "%6 = linalg.dot(%4, %5) {dtype = f32} : tile<f32[16, 16]>",
    "%6 = arith.mul(%4, %5) : tile<f32[16, 16]>\n  %7 = reduce.sum(%6) {axis = 1} : tile<f32[16]>",
)
LEGAL = frozenset({"index.program_id", "mem.load", "mem.store", "arith.mul", "reduce.sum"})
TARGETS = {backend: SimpleNamespace(legal_ops=LEGAL) for backend in ("triton", "cuda")}


def _artifact(backend: str, decomposed_at: int = 4) -> dict:
    """The pipeline's trace; the IR has a `linalg.dot` before pass number `decomposed_at`."""
    entries, before = [], Counter()
    for number, (name, category) in enumerate(PIPELINE):
        ir = HIGH_IR if number < decomposed_at else LOW_IR
        counts = ops_in_ir(ir)
        delta = {op: counts[op] - before[op] for op in counts | before if counts[op] != before[op]}
        entries.append(
            {
                "pass": name.format(backend=backend),
                "category": category,
                "options": {"backend": backend} if "{backend}" in name else {},
                "ir": ir,
                "op_counts": dict(counts),
                "op_count_delta": delta if number else {},
                "seconds": 0.001,
                "changed": number == decomposed_at,
                "verified": True,
            }
        )
        before = counts
    digest = hashlib.sha256(ir.encode("utf-8")).hexdigest()
    source = f"# ssa-sha256: {digest}\n@triton.jit\ndef k(a, b, c):\n    pass\n"
    return {"trace": entries, "ssa": ir, "source": source, "backend": backend}


def _artifacts(decomposed_at: int = 4) -> dict:
    return {
        b: {k: _artifact(b, decomposed_at) for k in ("matmul", "softmax")}
        for b in ("triton", "cuda")
    }


def _codes_at(findings) -> set[tuple[str, str]]:
    return {(finding.code, finding.path) for finding in findings}


def test_consistent_artifacts_pass():
    assert audit_traces(_artifacts(), TARGETS) == []


def test_objects_as_well_as_dicts():
    @dataclass
    class TraceEntry:
        pass_: str
        category: str
        options: dict
        ir: str
        op_counts: dict
        op_count_delta: dict
        seconds: float
        changed: bool
        verified: bool

    artifacts = _artifacts()
    for kernels in artifacts.values():
        for name, artifact in kernels.items():
            trace = [TraceEntry(pass_=e.pop("pass"), **e) for e in artifact["trace"]]
            kernels[name] = SimpleNamespace(**{**artifact, "trace": trace})
    assert audit_traces(artifacts, TARGETS) == []


def test_a_different_pass_order_breaks_the_shared_pipeline():
    artifacts = _artifacts()
    trace = artifacts["cuda"]["softmax"]["trace"]
    trace[1], trace[2] = trace[2], trace[1]
    findings = audit_traces(artifacts, TARGETS)
    assert ("LWT001", "trace/cuda/softmax") in _codes_at(findings)
    assert {f.path for f in findings if f.code == "LWT001"} == {"trace/cuda/softmax"}


def test_an_extra_operator_pass_breaks_the_shared_pipeline():
    artifacts = _artifacts()
    trace = artifacts["triton"]["matmul"]["trace"]
    trace.insert(4, {**copy.deepcopy(trace[3]), "pass": "ssa.fuse_attention", "op_count_delta": {}})
    findings = audit_traces(artifacts, TARGETS)
    (finding,) = [f for f in findings if f.code == "LWT001"]
    assert finding.path == "trace/triton/matmul" and finding.line == 5
    assert "ssa.fuse_attention" in finding.message


def test_another_backends_pass_is_not_this_backends_pass():
    artifacts = _artifacts()
    artifacts["cuda"]["matmul"]["trace"][3]["pass"] = "ssa.triton.optimize_schedule"
    assert ("LWT001", "trace/cuda/matmul") in _codes_at(audit_traces(artifacts, TARGETS))


def test_an_unverified_pass_is_reported():
    artifacts = _artifacts()
    artifacts["triton"]["softmax"]["trace"][5]["verified"] = False
    findings = [f for f in audit_traces(artifacts, TARGETS) if f.code == "LWT002"]
    assert [(f.path, f.line, f.subject) for f in findings] == [
        ("trace/triton/softmax", 6, "ssa.lower_memory_scopes")
    ]


@pytest.mark.parametrize("where", ["op_counts", "ir"])
def test_linalg_after_decomposition_raises_the_level(where: str):
    artifacts = _artifacts()
    entry = artifacts["cuda"]["matmul"]["trace"][5]
    if where == "op_counts":
        entry["op_counts"]["linalg.dot"] = 1
        entry["op_count_delta"] = {"linalg.dot": 1}
        artifacts["cuda"]["matmul"]["trace"][6]["op_count_delta"] = {"linalg.dot": -1}
    else:
        entry["ir"] = HIGH_IR
    findings = [f for f in audit_traces(artifacts, TARGETS) if f.code == "LWT003"]
    assert [(f.path, f.line) for f in findings] == [("trace/cuda/matmul", 6)]


def test_a_target_with_dots_may_keep_them_but_not_bring_them_back():
    with_dot = {b: SimpleNamespace(legal_ops=LEGAL | {"linalg.dot"}) for b in TARGETS}
    assert audit_traces(_artifacts(decomposed_at=len(PIPELINE)), with_dot) == []
    artifacts = _artifacts()
    artifacts["cuda"]["matmul"]["trace"][5]["ir"] = HIGH_IR
    findings = [f for f in audit_traces(artifacts, with_dot) if f.code == "LWT003"]
    assert [(f.path, f.line, f.subject) for f in findings] == [
        ("trace/cuda/matmul", 6, "linalg.dot")
    ]
    assert "ssa.lower_memory_scopes brought back linalg.dot" in findings[0].message


def test_a_target_without_dots_must_lose_them_at_decomposition():
    findings = audit_traces(_artifacts(decomposed_at=len(PIPELINE)), TARGETS)
    assert {(f.code, f.line) for f in findings} == {("LWT003", 5), ("LWT004", 7)}


def test_ops_the_target_lacks_after_intrinsic_lowering():
    targets = {**TARGETS, "cuda": SimpleNamespace(legal_ops=LEGAL - {"reduce.sum"})}
    findings = [f for f in audit_traces(_artifacts(), targets) if f.code == "LWT004"]
    assert {f.path for f in findings} == {"trace/cuda/matmul", "trace/cuda/softmax"}
    assert all(f.subject == "reduce.sum" for f in findings)


def test_a_missing_target_record_is_reported():
    findings = audit_traces(_artifacts(), {"triton": TARGETS["triton"]})
    assert ("LWT006", "trace/cuda/matmul") in _codes_at(findings)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a.update(source="@triton.jit\ndef k():\n    pass\n"), "no ssa-sha256"),
        (lambda a: a.update(source="// ssa-sha256: " + "0" * 64 + "\n"), "not the sha256"),
        (lambda a: a.update(ssa=HIGH_IR), "not the sha256"),
        (lambda a: a.update(backend="triton"), "says it was emitted for triton"),
    ],
)
def test_emitted_code_must_come_from_the_shared_ssa(change, message: str):
    artifacts = _artifacts()
    change(artifacts["cuda"]["softmax"])
    findings = [f for f in audit_traces(artifacts, TARGETS) if f.code == "LWT005"]
    assert findings and all(f.path == "trace/cuda/softmax" for f in findings)
    assert any(message in f.message for f in findings)


def test_ssa_that_is_not_the_pipelines_output_is_reported():
    artifacts = _artifacts()
    artifact = artifacts["triton"]["matmul"]
    artifact["ssa"] = LOW_IR + "\n"
    artifact["source"] = "# ssa-sha256: " + hashlib.sha256(artifact["ssa"].encode()).hexdigest()
    (finding,) = [f for f in audit_traces(artifacts, TARGETS) if f.code == "LWT005"]
    assert "not the IR after the last pass" in finding.message


def test_trace_integrity():
    artifacts = _artifacts()
    del artifacts["cuda"]["softmax"]
    del artifacts["triton"]["matmul"]["trace"][2]["seconds"]
    artifacts["triton"]["softmax"]["trace"][4]["op_count_delta"] = {}
    findings = [f for f in audit_traces(artifacts, TARGETS) if f.code == "LWT006"]
    assert [(f.path, f.line) for f in findings] == [
        ("trace/cuda/softmax", 1),
        ("trace/triton/matmul", 3),
        ("trace/triton/softmax", 5),
    ]


def test_cli_reads_traces_from_json(tmp_path, capsys):
    artifacts = _artifacts()
    artifacts["cuda"]["matmul"]["trace"][0]["verified"] = False
    document = {
        "artifacts": artifacts,
        "targets": {b: {"legal_ops": sorted(LEGAL)} for b in TARGETS},
    }
    (tmp_path / "traces.json").write_text(json.dumps(document))
    assert cli.main(["traces", str(tmp_path / "traces.json")]) == 1
    assert (
        "trace/cuda/matmul:1:1 LWT002 IR not verified after ssa.canonicalize"
        in capsys.readouterr().out
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("// a comment\n[]", "is not JSON"),
        ('[{"pass": "ssa.canonicalize"}]', 'holds no artifacts: give {"artifacts"'),
    ],
)
def test_cli_says_what_a_traces_file_must_hold(tmp_path, capsys, text, message):
    (tmp_path / "traces.json").write_text(text)
    assert cli.main(["traces", str(tmp_path / "traces.json")]) == 2
    assert message in capsys.readouterr().err
