"""`audit_traces`: the invariants every compiled artifact's pass trace must keep.

artifacts_by_backend: {backend: {kernel name: artifact}}, where an artifact has `trace`
    (entries with pass, category, options, ir, op_counts, op_count_delta, seconds, changed,
    verified), `ssa` (final IR text), `source` (emitted code) and `backend`; objects or dicts.
targets: {backend: target}, where a target has `legal_ops` (a set of op names).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from audits.findings import Finding
from audits.trace.checks import (
    check_entries,
    check_legal,
    check_level,
    check_provenance,
    check_verified,
    finding,
    location,
)
from audits.trace.fields import read
from audits.trace.rules import SAME_PIPELINE, TRACE_INTEGRITY

DECOMPOSITION_PASS = "ssa.decompose_linalg"
INTRINSIC_PASS = "ssa.lower_backend_intrinsics"
HIGH_LEVEL_DIALECTS = ("linalg",)


def audit_traces(
    artifacts_by_backend: Mapping[str, Mapping[str, object]],
    targets: Mapping[str, object],
    decomposition_pass: str = DECOMPOSITION_PASS,
    intrinsic_pass: str = INTRINSIC_PASS,
    high_level_dialects: Sequence[str] = HIGH_LEVEL_DIALECTS,
) -> list[Finding]:
    findings = _check_coverage(artifacts_by_backend)
    pipelines = {}
    for backend, artifacts in artifacts_by_backend.items():
        target = targets.get(backend)
        legal_ops = read(target, "legal_ops", None) if target is not None else None
        for kernel, artifact in artifacts.items():
            where = location(backend, kernel)
            trace = list(read(artifact, "trace", []) or [])
            pipelines[(backend, kernel)] = _pipeline(trace, backend)
            findings += check_entries(where, trace)
            findings += check_verified(where, trace)
            findings += check_level(
                where, trace, decomposition_pass, high_level_dialects, legal_ops
            )
            if legal_ops is None:
                what = f"no target record with legal_ops for backend {backend}"
                findings.append(finding(TRACE_INTEGRITY, where, 1, what, "target"))
            else:
                ssa = read(artifact, "ssa", "")
                findings += check_legal(where, trace, ssa, intrinsic_pass, legal_ops)
            findings += check_provenance(where, backend, artifact)
    findings += _check_same_pipeline(pipelines, (decomposition_pass, intrinsic_pass))
    return sorted(findings)


def _pipeline(trace: list, backend: str) -> tuple[tuple[str, str], ...]:
    """(pass name with the backend's own name as <backend>, category) for each entry."""
    steps = []
    for entry in trace:
        parts = str(read(entry, "pass", "?")).split(".")
        name = ".".join("<backend>" if part == backend else part for part in parts)
        steps.append((name, str(read(entry, "category", "?"))))
    return tuple(steps)


def _check_same_pipeline(pipelines: dict, required: tuple[str, ...]) -> list[Finding]:
    if not pipelines:
        return []
    shared, _ = Counter(pipelines.values()).most_common(1)[0]
    findings = []
    for (backend, kernel), steps in sorted(pipelines.items()):
        where = location(backend, kernel)
        names = [name for name, _ in steps]
        missing = [name for name in required if name not in names]
        if missing:
            what = f"pipeline lacks {', '.join(missing)}"
            findings.append(finding(SAME_PIPELINE, where, 1, what, "required passes"))
        if steps != shared:
            number, what = _first_difference(steps, shared)
            findings.append(finding(SAME_PIPELINE, where, number, what, "pipeline"))
    return findings


def _first_difference(steps: tuple, shared: tuple) -> tuple[int, str]:
    for number, (ran, expected) in enumerate(zip(steps, shared, strict=False), 1):
        if ran != expected:
            return number, (
                f"pass {number} is {ran[0]} ({ran[1]}) where the shared pipeline runs "
                f"{expected[0]} ({expected[1]})"
            )
    if len(steps) > len(shared):
        extra = ", ".join(name for name, _ in steps[len(shared) :])
        return len(shared) + 1, f"runs extra passes after the shared pipeline: {extra}"
    absent = ", ".join(name for name, _ in shared[len(steps) :])
    return len(steps) + 1, f"stops before the shared pipeline's {absent}"


def _check_coverage(artifacts_by_backend: Mapping[str, Mapping[str, object]]) -> list[Finding]:
    """Every kernel compiled on one backend is compiled on every backend present."""
    kernels = set().union(*(set(artifacts) for artifacts in artifacts_by_backend.values()))
    findings = []
    for backend, artifacts in sorted(artifacts_by_backend.items()):
        for kernel in sorted(kernels - set(artifacts)):
            what = f"kernel {kernel} has no artifact for backend {backend}"
            findings.append(finding(TRACE_INTEGRITY, location(backend, kernel), 1, what, "missing"))
    return findings
