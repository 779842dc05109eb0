"""The compatibility report: totals, per operator x backend, and each distinct error.

"Operator" is a test file (`tests/test_softmax.py` -> `softmax`). The reference column is
NineToothed itself on the same tests; a backend is judged on the tests the reference passes.
"""

from __future__ import annotations

import datetime
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from compiler.compat import data

OUTCOMES = ("passed", "failed", "skipped")


def load(path: Path) -> dict[str, dict]:
    """nodeid -> its last record."""
    records = {}
    for line in data.read(path).splitlines():
        record = json.loads(line)
        if "nodeid" in record:
            records[record["nodeid"]] = record
    return records


def runs(path: Path) -> list[dict]:
    """The settings each run recorded into `path` (one per worker and resumption), deduplicated."""
    seen = []
    for line in data.read(path).splitlines():
        record = json.loads(line)
        if "collected" in record:
            run = {k: v for k, v in record.items() if k not in ("collected", "backend")}
            if run not in seen:
                seen.append(run)
    return seen


def outcomes_json(corpus, results: dict[str, dict[str, dict]]) -> str:
    """Each test's outcome per backend, for regression checks against a later run."""
    table = {
        backend: {nodeid: record["outcome"] for nodeid, record in sorted(records.items())}
        for backend, records in results.items()
    }
    return json.dumps({"corpus": corpus.name, "outcomes": table}, indent=1, sort_keys=True) + "\n"


def operator(nodeid: str) -> str:
    return Path(nodeid.split("::")[0]).stem.removeprefix("test_")


def progress_line(backend: str, counts: dict[str, int], seconds: float) -> str:
    done, total = counts.get("done", 0), counts.get("total", 0)
    parts = ", ".join(f"{counts.get(o, 0)} {o}" for o in OUTCOMES)
    return f"  {backend}: {done}/{total or '?'} tests ({parts}) in {seconds:.0f} s"


def _selection(run: dict) -> str:
    parts = [f"-k {run['keyword']}"] if run.get("keyword") else []
    parts += [f"failed on {run['failed_on']}"] if run.get("failed_on") else []
    return "; ".join(parts) or "-"


def _cell(records: list[dict]) -> str:
    counts = Counter(r["outcome"] for r in records)
    if not records:
        return "-"
    return "/".join(str(counts.get(o, 0)) for o in OUTCOMES)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _reason(record: dict) -> str:
    """The first line of the error, less what differs from one case to the next (object
    addresses, the values of the tensors an assertion compared); where the compiler warned of a
    race, that warning instead."""
    kind = record.get("kind", record["outcome"])
    if "warned" in record:
        return f"{kind} after {record['warned']}"
    message = _ADDRESS.sub("", record.get("message", ""))
    values = message.find("(tensor(")
    message = message if values < 0 else message[:values] + "(...)"
    return f"{kind}: {message}".strip()


def render(corpus, results: dict[str, dict[str, dict]], runs: dict[str, list[dict]]) -> str:
    reference = results.get("reference", {})
    reference_passed = {n for n, r in reference.items() if r["outcome"] == "passed"}
    lines = [
        f"# Compatibility: {corpus.name}",
        "",
        f"The library's own pytest suite, run on the CPU by `python -m compiler.compat` on "
        f"{datetime.date.today().isoformat()} with `ninetoothed` bound to this compiler (one "
        "backend per column) or to NineToothed 0.26 itself in Triton's interpreter (`reference`). "
        "The library's CUDA device is moved to the CPU as it is imported (`compiler/compat/"
        "on_cpu.py`); nothing of it is changed on disk.",
        "",
        "| column | commit | tests | per-test limit | selected |",
        "|---|---|---|---:|---|",
        *(
            f"| {column} | {run.get('commit', '?')} | "
            + (f"{run['sample']} per file" if run.get("sample", "0") != "0" else "all")
            + f" | {float(run.get('timeout') or 0):g} s | {_selection(run)} |"
            for column, column_runs in runs.items()
            for run in column_runs
        ),
        "",
        "## Totals",
        "",
        "| backend | tests | passed | failed | skipped | passes of the reference's passes |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for backend, records in results.items():
        counts = Counter(r["outcome"] for r in records.values())
        if backend == "reference" or not reference_passed:
            judged = "-"
        else:
            ours = sum(1 for n in reference_passed if records.get(n, {}).get("outcome") == "passed")
            judged = f"{ours}/{len(reference_passed)} ({100 * ours / len(reference_passed):.1f}%)"
        lines.append(
            f"| {backend} | {len(records)} | "
            + " | ".join(str(counts.get(o, 0)) for o in OUTCOMES)
            + f" | {judged} |"
        )
    lines += ["", "## Per operator (passed/failed/skipped)", ""]
    names = list(results)
    lines += ["| operator | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    by_operator: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for backend, records in results.items():
        for nodeid, record in records.items():
            by_operator[operator(nodeid)][backend].append(record)
    for op in sorted(by_operator):
        lines.append(f"| {op} | " + " | ".join(_cell(by_operator[op][b]) for b in names) + " |")
    lines += _shortfalls(results, reference_passed)
    lines += _failures(results)
    return "\n".join(lines) + "\n"


def _shortfalls(results: dict, reference_passed: set[str]) -> list[str]:
    lines = ["", "## Where a backend falls short of the reference", ""]
    if "reference" not in results:
        return [*lines, "No reference run: run with `--backend reference` too.", ""]
    for backend, records in results.items():
        if backend == "reference":
            continue
        missing = [n for n in sorted(reference_passed) if n in records]
        failing = [records[n] for n in missing if records[n]["outcome"] != "passed"]
        lines.append(f"### {backend}: {len(failing)} of {len(missing)}")
        lines.append("")
        lines += _grouped(failing) or ["Every test the reference passes passes here.", ""]
        lines += _unjudged(records, results["reference"])
    return lines


def _unjudged(records: dict, reference: dict) -> list[str]:
    """Tests the reference has not run: whichever way it would go, one this backend passes
    cannot lower its share of the reference's passes, and one it fails might."""
    unjudged = [r for n, r in records.items() if n not in reference]
    if not unjudged:
        return []
    counts = Counter(r["outcome"] for r in unjudged)
    outcomes = ", ".join(f"{counts.get(o, 0)} {o}" for o in OUTCOMES)
    return [f"Not yet run by the reference: {len(unjudged)} tests, here {outcomes}.", ""]


def _failures(results: dict) -> list[str]:
    """Every failure of every column, the reference's included, by distinct reason."""
    lines = ["## Every failure, by column", ""]
    for backend, records in results.items():
        failing = [r for r in records.values() if r["outcome"] == "failed"]
        lines += [f"### {backend}: {len(failing)}", "", *(_grouped(failing) or ["None.", ""])]
    return lines


def _grouped(records: list[dict]) -> list[str]:
    """One line per distinct reason: how many tests, which operators."""
    groups: dict[str, list[str]] = defaultdict(list)
    for record in records:
        groups[_reason(record)].append(operator(record["nodeid"]))
    lines = []
    for reason, ops in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(sorted(set(ops)))
        quoted = reason.replace("`", "'")
        lines.append(f"- {len(ops)} x `{quoted}` ({shown})")
    return [*lines, ""] if lines else []
