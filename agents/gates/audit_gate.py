"""`audit`: the lowering audit of the code, `python -m audits check --format json` (exit 0 clean,
1 findings, 2 when it cannot audit, which fails the gate too)."""

from __future__ import annotations

from agents.gates.base import Finding, GateContext, GateResult, broken, load_json, run_command
from agents.tasks import GateSpec


def run(spec: GateSpec, ctx: GateContext) -> GateResult:
    argv = [ctx.python, "-m", "audits", "check", "--format", "json", *spec.args]
    done = run_command(spec, ctx, argv)
    report = load_json(done.stdout)
    if done.returncode not in (0, 1) or not isinstance(report, dict):
        return broken(spec, argv, done, f"could not audit (exit {done.returncode})")
    findings = [
        Finding(item["path"], item["line"], item["code"], item["message"])
        for item in report.get("findings", [])
    ]
    return GateResult(spec.name, spec.kind, not findings, findings, argv, done.seconds)
