#!/usr/bin/env python3
"""Print a program's pass trace - each pass with its category, whether it changed the IR, its time
and its op-count delta - and check the trace: the IR verified after every pass, `changed` true
exactly when the IR text changed, op-count deltas that add up.

The trace comes from the `emit-trace` command of this skill's references/project.md (FILE fills
`{file}`; ARGS are appended) or from --trace (a file, or - for stdin). A trace is a JSON list of
entries with `pass`, `category`, `options`, `ir`, `op_counts`, `op_count_delta`, `seconds`,
`changed` and `verified` (or an object holding such a list under `trace`); lines starting with //
between several traces are headers. --diff PASS prints the IR diff one pass made (PASS#2 for its
second run). Exit status: 0, or 1 when a check fails. Run it from the project's root.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1] / "references" / "project.md"


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


def read_text(arguments: argparse.Namespace) -> str:
    if arguments.trace:
        return sys.stdin.read() if arguments.trace == "-" else Path(arguments.trace).read_text()
    if not arguments.file:
        raise SystemExit("give a program FILE or --trace PATH")
    command = project_value("Commands", "emit-trace").format(file=shlex.quote(arguments.file))
    done = subprocess.run(
        " ".join([command, *map(shlex.quote, arguments.args)]),
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{command} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def traces(text: str) -> list[list[dict]]:
    """Every trace in `text`: JSON documents, optionally separated by // header lines."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    decoder, found, position = json.JSONDecoder(), [], 0
    while body[position:].strip():
        position += len(body[position:]) - len(body[position:].lstrip())
        document, position = decoder.raw_decode(body, position)
        found.append(document["trace"] if isinstance(document, dict) else document)
    return found


def table(trace: list[dict]) -> list[str]:
    lines = [f"{'pass':36} {'category':22} {'changed':9} {'ms':>8}  op-count delta"]
    for entry in trace:
        delta = ", ".join(f"{op} {n:+d}" for op, n in sorted(entry["op_count_delta"].items()))
        changed = "changed" if entry["changed"] else "-"
        lines.append(
            f"{entry['pass']:36} {entry['category']:22} {changed:9} "
            f"{entry['seconds'] * 1e3:8.2f}  {delta or '-'}"
        )
    return lines


def problems(trace: list[dict]) -> list[str]:
    found = []
    for number, (before, entry) in enumerate(zip([None, *trace], trace, strict=False), 1):
        where = f"entry {number} ({entry['pass']})"
        if not entry["verified"]:
            found.append(f"{where}: the IR was not verified after this pass")
        if before is None:
            continue
        if entry["changed"] != (entry["ir"] != before["ir"]):
            found.append(f"{where}: changed={entry['changed']} but the IR text says otherwise")
        delta = Counter(entry["op_counts"])
        delta.subtract(before["op_counts"])
        if {op: n for op, n in delta.items() if n} != entry["op_count_delta"]:
            found.append(f"{where}: op_count_delta does not match the op counts")
    return found


def diff(trace: list[dict], wanted: str) -> list[str]:
    name, _, nth = wanted.partition("#")
    runs = [i for i, entry in enumerate(trace) if entry["pass"] == name]
    index = int(nth or 1) - 1
    if not 0 <= index < len(runs):
        raise SystemExit(f"{name} runs {len(runs)} time(s) in this trace; cannot show {wanted}")
    at = runs[index]
    if at == 0:
        return [f"{wanted} is the first pass: the trace holds no IR from before it"]
    before, after = trace[at - 1]["ir"].splitlines(), trace[at]["ir"].splitlines()
    return list(difflib.unified_diff(before, after, trace[at - 1]["pass"], wanted, lineterm=""))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options go before FILE; everything after FILE is passed to the compile command.",
    )
    parser.add_argument("--trace", help="read the trace JSON from this file (- for stdin)")
    parser.add_argument("--diff", metavar="PASS", help="print the IR diff of PASS (or PASS#N)")
    parser.add_argument("file", nargs="?", help="the program to compile")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="extra compile arguments")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    failed = False
    for trace in traces(read_text(arguments)):
        print("\n".join(diff(trace, arguments.diff) if arguments.diff else table(trace)))
        for problem in problems(trace):
            print(f"problem: {problem}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
