"""One check per invariant of a compiled artifact's pass trace."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from audits.findings import Finding
from audits.rules.base import RuleInfo
from audits.trace.fields import MISSING, TRACE_ENTRY_KEYS, read
from audits.trace.ir_ops import present_ops
from audits.trace.rules import (
    EMITTED_FROM_SSA,
    LEVEL_NEVER_RISES,
    TARGET_LEGAL_OPS,
    TRACE_INTEGRITY,
    VERIFIED_AFTER_EACH_PASS,
)

SSA_HASH_LINE = re.compile(r"ssa-sha256:\s*([0-9a-fA-F]{64})")


def location(backend: str, kernel: str) -> str:
    return f"trace/{backend}/{kernel}"


def finding(rule: RuleInfo, where: str, line: int, what: str, subject: str) -> Finding:
    return Finding(where, line, 1, rule.code, f"{what}; {rule.fix}", subject)


def check_entries(where: str, trace: Sequence) -> list[Finding]:
    """Every entry has every field, and each op-count change matches the counts around it."""
    findings = []
    for number, entry in enumerate(trace, 1):
        missing = [key for key in TRACE_ENTRY_KEYS if read(entry, key) is MISSING]
        if missing:
            what = f"trace entry {number} lacks {', '.join(missing)}"
            findings.append(finding(TRACE_INTEGRITY, where, number, what, "fields"))
    for number in range(2, len(trace) + 1):
        before = read(trace[number - 2], "op_counts", None) or {}
        after = read(trace[number - 1], "op_counts", None) or {}
        delta = read(trace[number - 1], "op_count_delta", None) or {}
        expected = {op: after.get(op, 0) - before.get(op, 0) for op in set(before) | set(after)}
        if {op: n for op, n in expected.items() if n} != {op: n for op, n in delta.items() if n}:
            name = read(trace[number - 1], "pass", "?")
            what = f"op_count_delta of {name} disagrees with the op counts before and after it"
            findings.append(finding(TRACE_INTEGRITY, where, number, what, f"delta {name}"))
    return findings


def check_verified(where: str, trace: Sequence) -> list[Finding]:
    return [
        finding(
            VERIFIED_AFTER_EACH_PASS,
            where,
            number,
            f"IR not verified after {read(entry, 'pass', '?')}",
            str(read(entry, "pass", "?")),
        )
        for number, entry in enumerate(trace, 1)
        if read(entry, "verified", False) is not True
    ]


def check_level(
    where: str,
    trace: Sequence,
    decomposition_pass: str,
    high_level_dialects: Sequence[str],
    legal_ops=None,
) -> list[Finding]:
    """From the decomposition pass on, no high-level op the target lacks (all of them when
    `legal_ops` is None), and no high-level op that the decomposition's output did not have."""
    names = [read(entry, "pass", None) for entry in trace]
    if decomposition_pass not in names:
        return []
    start = names.index(decomposition_pass)
    allowed = None
    for number, entry in enumerate(trace[start:], start + 1):
        ops = present_ops(read(entry, "op_counts", None), read(entry, "ir", None))
        high = {op for op in ops if op.split(".")[0] in high_level_dialects}
        lacking = sorted(high - set(legal_ops or ()))
        if lacking:
            what = f"{', '.join(lacking)} present after {decomposition_pass} "
            what += f"(at {names[number - 1]}), and the target lacks it"
            return [finding(LEVEL_NEVER_RISES, where, number, what, ",".join(lacking))]
        risen = sorted(high - allowed) if allowed is not None else []
        if risen:
            what = f"{names[number - 1]} brought back {', '.join(risen)} after {decomposition_pass}"
            return [finding(LEVEL_NEVER_RISES, where, number, what, ",".join(risen))]
        allowed = high if allowed is None else allowed & high
    return []


def check_legal(
    where: str, trace: Sequence, final_ssa: str, intrinsic_pass: str, legal_ops
) -> list[Finding]:
    """After intrinsic lowering, and in the final SSA, every op is legal on the target."""
    names = [read(entry, "pass", None) for entry in trace]
    if intrinsic_pass not in names:
        return []
    start = names.index(intrinsic_pass)
    for number, entry in enumerate(trace[start:], start + 1):
        ops = present_ops(read(entry, "op_counts", None), read(entry, "ir", None))
        illegal = sorted(ops - set(legal_ops))
        if illegal:
            what = f"{', '.join(illegal)} not legal on the target after {names[number - 1]}"
            return [finding(TARGET_LEGAL_OPS, where, number, what, ",".join(illegal))]
    illegal = sorted(present_ops(None, final_ssa) - set(legal_ops))
    if illegal:
        what = f"final SSA holds ops not legal on the target: {', '.join(illegal)}"
        return [finding(TARGET_LEGAL_OPS, where, len(trace), what, ",".join(illegal))]
    return []


def check_provenance(where: str, backend: str, artifact) -> list[Finding]:
    """The emitted code names the final SSA's sha256, and that SSA is the pipeline's output."""
    ssa, source = read(artifact, "ssa", ""), read(artifact, "source", "")
    trace = read(artifact, "trace", [])
    findings = []
    header = SSA_HASH_LINE.search(source or "")
    digest = hashlib.sha256((ssa or "").encode("utf-8")).hexdigest()
    if header is None:
        findings.append(
            finding(EMITTED_FROM_SSA, where, 1, "emitted code has no ssa-sha256", "hash")
        )
    elif header.group(1).lower() != digest:
        what = "emitted code's ssa-sha256 is not the sha256 of the artifact's SSA"
        findings.append(finding(EMITTED_FROM_SSA, where, 1, what, "hash"))
    if trace and read(trace[-1], "ir", None) != ssa:
        what = "the artifact's SSA is not the IR after the last pass"
        findings.append(finding(EMITTED_FROM_SSA, where, len(trace), what, "final ir"))
    artifact_backend = read(artifact, "backend", backend)
    if artifact_backend != backend:
        what = f"artifact filed under {backend} says it was emitted for {artifact_backend}"
        findings.append(finding(EMITTED_FROM_SSA, where, 1, what, "backend"))
    return findings
