"""`audit`, `traces` and `behaviour`: the lowering audit of the code (`python -m audits check`),
the pass-trace audit of the suite compiled for every backend, or the gate's `--backend`/`--kernel`
selection (`python -m audits traces --suite`), and the behavioural audits over the same selection
(`python -m audits behaviour`: renaming, purity, imports, clean-room replay, structure). All report
JSON; exit 0 is clean, 1 findings, anything else means the audit could not run, which fails the
gate too."""

from __future__ import annotations

from agents.gates.base import Finding, GateContext, GateResult, broken, load_json, run_command
from agents.tasks import GateSpec


def _audit(spec: GateSpec, ctx: GateContext, command: list[str], what: str) -> GateResult:
    argv = [ctx.python, "-m", "audits", *command, "--format", "json", *spec.args]
    done = run_command(spec, ctx, argv)
    report = load_json(done.stdout)
    if done.returncode not in (0, 1) or not isinstance(report, dict):
        return broken(spec, argv, done, f"could not audit{what} (exit {done.returncode})")
    findings = [
        Finding(item["path"], item["line"], item["code"], item["message"])
        for item in report.get("findings", [])
    ]
    return GateResult(spec.name, spec.kind, not findings, findings, argv, done.seconds)


def run(spec: GateSpec, ctx: GateContext) -> GateResult:
    return _audit(spec, ctx, ["check"], "")


def run_traces(spec: GateSpec, ctx: GateContext) -> GateResult:
    return _audit(spec, ctx, ["traces", "--suite"], " the traces")


def run_behaviour(spec: GateSpec, ctx: GateContext) -> GateResult:
    # A fixed renaming, so that a replay sees the same words; any use of a name shows up anyway.
    return _audit(spec, ctx, ["behaviour", "--seed", "1"], " the compiler's behaviour")
