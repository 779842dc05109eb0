"""The run's report: status, gate results, usage (tokens, dollars, time), where the time went (the
model, the gates, the other tools), the calls of each tool and how often each gate failed or ran
out of time (to compare one run with another), the diff, and where the change is (a patch file in
the transcript folder, a branch in the sandbox)."""

from __future__ import annotations

from agents.budget import NO_TIME
from agents.render import render_transcript
from agents.runtime import Runtime
from agents.state import AgentState

PATCH = "patch.diff"
REPORT = "report.md"


def report(rt: Runtime, state: AgentState) -> dict:
    """The graph's last node: patch, branch, report.md, the `report` event, transcript.md."""
    diff = rt.sandbox.diff()
    changed = rt.sandbox.changed_files()
    (rt.out / PATCH).write_text(diff, encoding="utf-8")
    branch = f"agent/{rt.run_id}"
    commit = rt.sandbox.commit(f"{rt.task.name}: {rt.run_id}", branch=branch)
    status = "green" if state["outcome"] == "green" else "stopped"
    summary = {
        "status": status,
        "reason": state["reason"],
        "usage": state["usage"],
        "gates": [_gate_line(g) for g in state["gates"]],
        "gate_rounds": state["rounds"],
        "changed": changed,
        "commit": commit,
        "patch": PATCH,
        "branch": branch,
        "sandbox": str(rt.sandbox.root),
    }
    rt.transcript.event("report", **summary)
    (rt.out / REPORT).write_text(render_report(rt.header, summary, diff), encoding="utf-8")
    render_transcript(rt.transcript.path)
    rt.say(f"{status.upper()}: report {rt.out / REPORT}")
    return {"outcome": status}


def _gate_line(gate: dict) -> dict:
    return {
        "name": gate["name"],
        "passed": gate["passed"],
        "stopped": gate["time_limit"] is not None,  # by its time limit, with no verdict
        "retried": gate["retried_after"] is not None,
        "findings": len(gate["findings"]),
        "seconds": round(gate["seconds"], 2),
        "ran": gate["ran"],
    }


def _result(gate: dict) -> str:
    verdict = "passed" if gate["passed"] else "FAILED"
    if gate["stopped"]:
        verdict = "STOPPED by its time limit"
    return verdict + (" (on its second try)" if gate["retried"] else "")


def render_report(header: dict, summary: dict, diff: str) -> str:
    usage = summary["usage"]
    time = usage.get("time", NO_TIME)
    replay = f" (replay of {header['replay_of']})" if header.get("replay_of") else ""
    estimated = " (estimated)" if usage["tokens_estimated"] else ""
    priced = header["budget"]["price_input"] or header["budget"]["price_output"]
    dollars = f"{usage['dollars']:.4f}" if priced else "unknown (no prices set)"
    lines = [
        f"# Run {header['run_id']}: {header['task']} — {summary['status'].upper()}",
        "",
        f"- provider: {header['provider']}, model: {header['model']}{replay}",
        f"- params: {header['params'] or 'none'}; base commit: {header['commit']}",
    ]
    if summary["reason"]:
        lines.append(f"- stopped by the {summary['reason']}")
    lines += [
        f"- the change: `{summary['patch']}` here (`git apply` it in your checkout), or branch "
        f"`{summary['branch']}` of `{summary['sandbox']}` (`git fetch <sandbox> <branch>`)",
        "",
        "## Gates (last run)",
        "",
        "| gate | result | findings | seconds | ran |",
        "| --- | --- | --- | --- | --- |",
        *(
            f"| {g['name']} | {_result(g)} | {g['findings']} | {g['seconds']} | {g['ran']} |"
            for g in summary["gates"]
        ),
        "" if summary["gates"] else "(the gates never ran)",
        "## Usage",
        "",
        "| model calls (attempts) | failed | retries | prompt tokens | completion tokens | "
        "dollars | seconds | malformed tool calls | refused tool calls |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| {usage['steps']} | {usage['failed_calls']} | {usage['retries']} "
        f"| {usage['prompt_tokens']}{estimated} | {usage['completion_tokens']}{estimated} "
        f"| {dollars} | {usage['seconds']:.1f} | {usage['malformed_tool_calls']} "
        f"| {usage['refused_tool_calls']} |",
        "",
        "## Time",
        "",
        "| model calls | gates | other tools | in all |",
        "| --- | --- | --- | --- |",
        f"| {time['model']:.1f} s | {time['gates']:.1f} s | {time['tools']:.1f} s "
        f"| {usage['seconds']:.1f} s |",
        "",
        "## Tool calls",
        "",
        "| tool | calls | ok | error | refused | malformed | seconds |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *(
            f"| {name} | {t['calls']} | {t['ok']} | {t['error']} | {t['refused']} "
            f"| {t['malformed']} | {t['seconds']:.1f} |"
            for name, t in sorted(usage["tools"].items())
        ),
        "" if usage["tools"] else "(no tool was called)",
        "## Gate runs (all rounds)",
        "",
        "| gate | runs | failed | findings | stopped by its time limit |",
        "| --- | --- | --- | --- | --- |",
        *(
            f"| {name} | {g['runs']} | {g['failed']} | {g['findings']} | {g.get('stopped', 0)} |"
            for name, g in usage["gates"].items()
        ),
        "" if usage["gates"] else "(the gates never ran)",
        "## Diff",
        "",
        "```diff",
        diff.rstrip() or "(no change)",
        "```",
        "",
    ]
    return "\n".join(lines)
