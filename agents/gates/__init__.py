"""The gates a change must pass, run in the task's order: `ruff`, `audit` (the lowering audit of
the code), `pytest` (the tests the task names), `script` (a check shipped with the task), `traces`
(the pass-trace audit of the suite), `behaviour` (the behavioural audits) and `success` (the
task's criteria). One module per kind.

Every failure becomes findings with file:line and a rule code; `feedback` writes them for the
model. Model-facing text holds no durations, so a replay sees the same words; the one exception
is a gate stopped by its time limit (`time_limit.py`), which no replay repeats anyway. Such a gate
has no findings; it runs once more with the time the run has left, and if that runs out too, the
model is told so apart from the findings.
"""

from __future__ import annotations

import dataclasses
import time

from agents.errors import AgentError
from agents.gates import (
    audit_gate,
    pytest_gate,
    ruff_gate,
    script_gate,
    success_gate,
)
from agents.gates.base import Finding, GateContext, GateResult
from agents.tasks import GateSpec

KINDS = {
    "ruff": ruff_gate.run,
    "audit": audit_gate.run,
    "pytest": pytest_gate.run,
    "script": script_gate.run,
    "traces": audit_gate.run_traces,
    "behaviour": audit_gate.run_behaviour,
    "success": success_gate.run,
}
SHOWN_FINDINGS = 30  # per gate; the rest are counted

__all__ = ["Finding", "GateContext", "GateResult", "check_kinds", "feedback", "run_gates"]


def check_kinds(gates: tuple[GateSpec, ...], where: str) -> None:
    for gate in gates:
        if gate.kind not in KINDS:
            raise AgentError(f"{where}: gate kind {gate.kind!r} is unknown; kinds: {sorted(KINDS)}")


def run_gates(
    gates: tuple[GateSpec, ...], ctx: GateContext, seconds_left: float
) -> list[GateResult]:
    """Each gate in order; `seconds_left`: the run's time budget left, for the retries."""
    start = time.monotonic()
    results = []
    for gate in gates:
        result = KINDS[gate.kind](gate, ctx)
        left = seconds_left - (time.monotonic() - start)
        if result.time_limit and left > 0:
            result = _retry(gate, ctx, result, left)
        results.append(result)
    return results


def _retry(gate: GateSpec, ctx: GateContext, first: GateResult, seconds: float) -> GateResult:
    """Run a gate again that ran out of time, with `seconds` as its limit: a loaded machine, or a
    limit too short for the suite, is no fault of the change."""
    second = KINDS[gate.kind](dataclasses.replace(gate, timeout=seconds), ctx)
    return dataclasses.replace(
        second, retried_after=first.time_limit, seconds=first.seconds + second.seconds
    )


def feedback(results: list[GateResult]) -> str:
    """The gates' verdict as the model reads it: one line per gate, then every finding."""
    lines = ["Gates: " + ", ".join(_verdict(result) for result in results)]
    for result in results:
        if result.passed:
            continue
        lines += ["", f"{result.name}:"]
        if result.time_limit:
            lines += ["  " + line for line in _stop(result)]
        for finding in result.findings[:SHOWN_FINDINGS]:
            lines.append("  " + finding.text().replace("\n", "\n    "))
        if len(result.findings) > SHOWN_FINDINGS:
            lines.append(f"  ... and {len(result.findings) - SHOWN_FINDINGS} more")
    return "\n".join(lines)


def _stop(result: GateResult) -> list[str]:
    """What a gate stopped by its time limit tells, and whether it had a second try."""
    last = f"{result.time_limit.seconds:.0f} s"
    if result.retried_after:
        first = f"{result.retried_after.seconds:.0f} s"
        headline = (
            f"stopped by its time limit twice, before it could judge the change: after {first}, "
            f"and once more after {last}, the time the run had left"
        )
    else:
        headline = (
            f"stopped by its time limit after {last}, before it could judge the change; the run "
            "had no time left to try it once more"
        )
    return [headline, *result.time_limit.details()]


def _verdict(result: GateResult) -> str:
    if result.passed:
        return f"{result.name} passed"
    if result.time_limit:
        return f"{result.name} STOPPED by its time limit"
    count = len(result.findings)
    return f"{result.name} FAILED ({count} finding{'' if count == 1 else 's'})"
