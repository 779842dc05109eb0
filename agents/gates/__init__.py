"""The gates a change must pass, run in the task's order: `ruff`, `audit` (the lowering audit of
the code), `pytest` (the tests the task names), `script` (a check shipped with the task), `traces`
(the pass-trace audit of the suite) and `success` (the task's criteria). One module per kind.

Every failure becomes findings with file:line and a rule code; `feedback` writes them for the
model. Model-facing text holds no durations, so a replay sees the same words.
"""

from __future__ import annotations

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
    "success": success_gate.run,
}
SHOWN_FINDINGS = 30  # per gate; the rest are counted

__all__ = ["Finding", "GateContext", "GateResult", "check_kinds", "feedback", "run_gates"]


def check_kinds(gates: tuple[GateSpec, ...], where: str) -> None:
    for gate in gates:
        if gate.kind not in KINDS:
            raise AgentError(f"{where}: gate kind {gate.kind!r} is unknown; kinds: {sorted(KINDS)}")


def run_gates(gates: tuple[GateSpec, ...], ctx: GateContext) -> list[GateResult]:
    return [KINDS[gate.kind](gate, ctx) for gate in gates]


def feedback(results: list[GateResult]) -> str:
    """The gates' verdict as the model reads it: one line per gate, then every finding."""
    lines = ["Gates: " + ", ".join(_verdict(result) for result in results)]
    for result in results:
        if result.passed:
            continue
        lines += ["", f"{result.name}:"]
        for finding in result.findings[:SHOWN_FINDINGS]:
            lines.append("  " + finding.text().replace("\n", "\n    "))
        if len(result.findings) > SHOWN_FINDINGS:
            lines.append(f"  ... and {len(result.findings) - SHOWN_FINDINGS} more")
    return "\n".join(lines)


def _verdict(result: GateResult) -> str:
    if result.passed:
        return f"{result.name} passed"
    count = len(result.findings)
    return f"{result.name} FAILED ({count} finding{'' if count == 1 else 's'})"
