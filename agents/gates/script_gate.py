"""`script`: a check script shipped with the task (not with the sandbox, so the model cannot
change it), run with the sandbox as working directory and first on the import path. It prints
`{"findings": [{"path", "line", "code", "message"}]}` and exits 0 when clean, 1 on findings."""

from __future__ import annotations

from agents.gates.base import Finding, GateContext, GateResult, broken, load_json, run_command, tail
from agents.tasks import GateSpec


def run(spec: GateSpec, ctx: GateContext) -> GateResult:
    argv = [ctx.python, str(spec.script), *spec.args]
    done = run_command(spec, ctx, argv)
    report = load_json(done.stdout)
    if done.returncode not in (0, 1) or not isinstance(report, dict):
        return broken(spec, argv, done, f"exited {done.returncode} without a JSON report")
    findings = [
        Finding(item["path"], int(item["line"]), item["code"], item["message"])
        for item in report.get("findings", [])
    ]
    if done.returncode == 1 and not findings:
        return broken(spec, argv, done, "failed without findings")
    return GateResult(spec.name, spec.kind, not findings, findings, argv, done.seconds, tail(done))
