#!/usr/bin/env python3
"""Run the lowering audit and print its findings grouped by rule: each rule once, with what it
catches and what to do instead, then every finding of that rule as path:line:column and message.

The audit is the `audit-json` command of this skill's references/project.md (PATHS are appended),
and the rule catalogue the `audit-rules` command; --input and --rules read saved JSON instead.
Findings JSON: {"findings": [{"path", "line", "column", "code", "message"}, ...], ...}; rules JSON:
[{"code", "name", "summary", "fix"}, ...]. Exit status: the audit's (0 clean, 1 findings, 2 the
audit could not run). Run it from the project's root.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1] / "references" / "project.md"
CLEAN, FINDINGS, CANNOT_AUDIT = 0, 1, 2


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


def run_json(key: str, extra: list[str]) -> tuple[object, int]:
    """The JSON a project command prints, and its exit status (CANNOT_AUDIT if it printed none)."""
    command = " ".join([project_value("Commands", key), *map(shlex.quote, extra)])
    done = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
    try:
        return json.loads(done.stdout), done.returncode
    except json.JSONDecodeError:
        sys.stderr.write(done.stderr or done.stdout)
        return None, CANNOT_AUDIT


def load(path: str | None, key: str, extra: list[str]) -> tuple[object, int]:
    if path is None:
        return run_json(key, extra)
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    findings = document.get("findings") if isinstance(document, dict) else None
    return document, FINDINGS if findings else CLEAN


def summary(report: dict, rules: list[dict]) -> list[str]:
    findings = report.get("findings", [])
    files = sorted({finding["path"] for finding in findings})
    scanned = report.get("files_scanned")
    lines = [
        f"lowering audit: {len(findings)} finding(s) in {len(files)} file(s)"
        + (f" ({scanned} scanned)" if scanned is not None else "")
    ]
    by_code: dict[str, list[dict]] = defaultdict(list)
    for finding in findings:
        by_code[finding["code"]].append(finding)
    catalogue = {rule["code"]: rule for rule in rules}
    for code in sorted(by_code):
        rule = catalogue.get(code, {"name": "unknown rule", "summary": "", "fix": ""})
        lines.append(f"\n{code} {rule['name']} ({len(by_code[code])})")
        if rule["summary"]:
            lines.append(f"  catches: {rule['summary']}")
        if rule["fix"]:
            lines.append(f"  do instead: {rule['fix']}")
        for finding in sorted(by_code[code], key=lambda f: (f["path"], f["line"])):
            where = f"{finding['path']}:{finding['line']}:{finding.get('column', 1)}"
            message = finding["message"].removesuffix(f"; {rule['fix']}")
            lines.append(f"  {where} {message}")
    if files:
        lines.append("\nfiles to fix: " + ", ".join(files))
        lines.append("fix the code; never suppress or baseline a finding to make it go away")
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", help="read the findings JSON from this file instead")
    parser.add_argument("--rules", help="read the rule catalogue JSON from this file instead")
    parser.add_argument("paths", nargs="*", help="files or folders to audit (default: configured)")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    report, status = load(arguments.input, "audit-json", arguments.paths)
    if report is None:
        print("lowering audit: could not run; see the messages above", file=sys.stderr)
        return CANNOT_AUDIT
    rules, _ = load(arguments.rules, "audit-rules", [])
    print("\n".join(summary(report, rules or [])))
    return status


if __name__ == "__main__":
    sys.exit(main())
