#!/usr/bin/env python3
"""Run the project's checks and write a Markdown validation report: the git state, one row per
check (command, exit status, seconds), the tail of each check's output, and the evidence sections
a reviewer expects, to be filled in.

The checks are rows of the Commands table in this skill's references/project.md, chosen by key
(default: lint, audit, test). --dry-run prints the commands without running them. Exit status: 0
when every check passed, 1 when one failed. Run it from the project's root.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1] / "references" / "project.md"
DEFAULT_KEYS = ("lint", "audit", "test")
TAIL_LINES = 15
EVIDENCE = (
    "What changed and why",
    "IR and pass trace before and after (a representative kernel)",
    "Correctness: kernels run against the reference (inputs, sizes, poisoned outputs)",
    "Audit: code and trace findings, and how each was fixed",
    "Performance, if claimed: device, method, roofline placement, before and after",
    "Not covered, risks, follow-ups",
)


def project_value(section: str, key: str) -> str:
    """`key`'s value in the `## <section>` table of this skill's references/project.md."""
    if not PROJECT.is_file():
        raise SystemExit(f"{PROJECT} is missing: write the project's facts there (see SKILL.md)")
    rows, inside, fenced = {}, False, False
    for line in PROJECT.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")
        if line.startswith("## ") and not fenced:
            inside = line[3:].strip().lower() == section.lower()
        elif inside and line.startswith("|"):
            # a cell's `\|` is a pipe of its text (a shell pipeline), not a column break
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            cells = [cell.strip().strip("`").replace("\\|", "|") for cell in cells]
            rows.setdefault(cells[0], cells[1])
    if key not in rows:
        raise SystemExit(f"{PROJECT}: add a row `{key}` to its {section} table")
    return rows[key]


def git(*arguments: str) -> str:
    try:
        done = subprocess.run(["git", *arguments], capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def run_check(key: str) -> dict:
    command = project_value("Commands", key)
    start = time.perf_counter()
    done = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
    output = (done.stdout + done.stderr).strip().splitlines()
    return {
        "key": key,
        "command": command,
        "status": done.returncode,
        "seconds": time.perf_counter() - start,
        "tail": output[-TAIL_LINES:],
    }


def report(results: list[dict]) -> list[str]:
    commit = git("rev-parse", "--short", "HEAD") or "not a git repository"
    changed = git("status", "--short").splitlines()
    passed = all(result["status"] == 0 for result in results)
    lines = [
        "# Validation report",
        "",
        f"- result: {'all checks passed' if passed else 'FAILED'}",
        f"- commit: {commit}, {len(changed)} uncommitted change(s)",
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        "",
        "| check | command | exit | seconds |",
        "| --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r['key']} | `{r['command']}` | {r['status']} | {r['seconds']:.1f} |" for r in results
    ]
    for result in results:
        lines += ["", f"## {result['key']}", "", "```text", *result["tail"], "```"]
    if changed:
        lines += ["", "## Uncommitted changes", "", "```text", *changed, "```"]
    for heading in EVIDENCE:
        lines += ["", f"## {heading}", "", "(fill in: commands and output, not adjectives)"]
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--keys", nargs="+", default=list(DEFAULT_KEYS), help="Commands-table keys to run"
    )
    parser.add_argument("--output", "-o", help="write the report here instead of stdout")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    if arguments.dry_run:
        for key in arguments.keys:
            print(f"{key}: {project_value('Commands', key)}")
        return 0
    results = [run_check(key) for key in arguments.keys]
    text = "\n".join(report(results)) + "\n"
    if arguments.output:
        Path(arguments.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0 if all(result["status"] == 0 for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
