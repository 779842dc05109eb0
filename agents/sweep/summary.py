"""A sweep's tables: per skill, each eval and model with its pass rate with and without the
skill, the difference with a 95% interval, how often the skill was activated, and the median
model calls and tokens; then how each checked expectation fared. A run passes when every checked
expectation passes; expectations without a check need a reviewer and are listed, not graded.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from agents.sweep.plan import ARMS
from agents.sweep.stats import difference

ALL = "all evals"


@dataclass
class Arm:
    passed: int = 0
    runs: int = 0
    activated: int = 0
    calls: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)

    def add(self, record: dict) -> None:
        self.passed += bool(record["passed"])
        self.runs += 1
        self.activated += record["skill_activated"]
        self.calls.append(record["calls"])
        self.tokens.append(record["tokens"])


@dataclass
class Row:
    skill: str
    eval: str
    model: str
    arms: dict[str, Arm] = field(default_factory=lambda: {arm: Arm() for arm in ARMS})


def rows(records: list[dict]) -> list[Row]:
    """One row per (skill, eval, model), and per (skill, model) one over all its evals when the
    skill has several; graded runs only."""
    table: dict[tuple[str, str, str], Row] = {}
    evals = defaultdict(set)
    for record in sorted(records, key=lambda r: (r["skill"], r["eval"], r["model"])):
        if record["outcome"] == "error" or record["passed"] is None:
            continue
        evals[record["skill"]].add(record["eval"])
        for name in (record["eval"], ALL):
            key = (record["skill"], name, record["model"])
            table.setdefault(key, Row(*key)).arms[record["arm"]].add(record)
    return [row for row in table.values() if row.eval != ALL or len(evals[row.skill]) > 1]


def render(name: str, manifest: dict, records: list[dict]) -> str:
    config = manifest["config"]
    failed = sum(r["outcome"] == "error" for r in records)
    lines = [
        f"# Skill evals: sweep {name}",
        "",
        f"- commit {config['commit']}; gates: {', '.join(config['gates']) or 'none'}; "
        f"budget per run: {_budget(config['budget'])}",
        *(_model_line(model, spec, config) for model, spec in sorted(manifest["models"].items())),
    ]
    if config["commands"]:
        replaced = ", ".join(f"{k} = `{v}`" for k, v in sorted(config["commands"].items()))
        lines.append(f"- grading commands replaced for this sweep: {replaced}")
    lines += [
        f"- runs recorded: {len(records)}" + (f", {failed} failed (not counted)" if failed else ""),
        "- a run passes when every checked expectation passes; difference = with - without in "
        "percentage points, with Newcombe's 95% interval; medians over the runs",
    ]
    grouped = defaultdict(list)
    for row in rows(records):
        grouped[row.skill].append(row)
    for skill, skill_rows in sorted(grouped.items()):
        lines += ["", f"## {skill}", "", *_pass_table(skill_rows), ""]
        lines += _expectations(skill, records)
    return "\n".join(lines) + "\n"


def _pass_table(skill_rows: list[Row]) -> list[str]:
    lines = [
        "| eval | model | with: passed | without: passed | difference [95% CI] "
        "| skill activated | median calls (with / without) | median tokens (with / without) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in skill_rows:
        with_, without = row.arms["with"], row.arms["without"]
        lines.append(
            f"| {row.eval} | {row.model} | {_rate(with_)} | {_rate(without)} | "
            f"{_difference(with_, without)} | {with_.activated}/{with_.runs} "
            f"| {_median(with_.calls)} / {_median(without.calls)} "
            f"| {_median(with_.tokens)} / {_median(without.tokens)} |"
        )
    return lines


def _expectations(skill: str, records: list[dict]) -> list[str]:
    counts: dict[tuple[str, str, str], dict[str, list[int]]] = {}
    judged: dict[str, set[str]] = defaultdict(set)
    for record in records:
        if record["skill"] != skill or record["outcome"] == "error":
            continue
        for grade in record["grades"]:
            if grade["status"] == "judge":
                judged[record["eval"]].add(grade["text"])
                continue
            key = (record["eval"], record["model"], grade["text"])
            tally = counts.setdefault(key, {arm: [0, 0] for arm in ARMS})[record["arm"]]
            tally[0] += grade["status"] == "pass"
            tally[1] += 1
    lines = [
        "| eval | model | expectation | with | without |",
        "| --- | --- | --- | --- | --- |",
        *(
            f"| {ev} | {model} | {text} | {t['with'][0]}/{t['with'][1]} "
            f"| {t['without'][0]}/{t['without'][1]} |"
            for (ev, model, text), t in counts.items()
        ),
    ]
    for ev, texts in sorted(judged.items()):
        lines.append(f"\nNot graded ({ev}; a reviewer judges them): " + "; ".join(sorted(texts)))
    return lines


def _model_line(model: str, spec: dict, config: dict) -> str:
    if spec["scripted"]:
        good, bad = config["scripted_rates"]
        return (
            f"- model {model}: SCRIPTED, the local scripted model (agents/sweep/scripted.py), not "
            f"a real model; it does the right thing in {good:.0%} of runs with the skill active "
            f"and {bad:.0%} without. These numbers show that the sweep works, not what a skill "
            "is worth."
        )
    return f"- model {model} at {spec['base_url'] or 'OPENAI_BASE_URL'}"


def _rate(arm: Arm) -> str:
    return f"{arm.passed}/{arm.runs} ({arm.passed / arm.runs:.0%})" if arm.runs else "-"


def _difference(with_: Arm, without: Arm) -> str:
    if not (with_.runs and without.runs):
        return "-"
    delta, lower, upper = difference(with_.passed, with_.runs, without.passed, without.runs)
    return f"{100 * delta:+.0f} pp [{100 * lower:+.0f}, {100 * upper:+.0f}]"


def _median(values: list[int]) -> str:
    return f"{statistics.median(values):,.0f}" if values else "-"


def _budget(budget: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(budget.items())) or "the defaults"
