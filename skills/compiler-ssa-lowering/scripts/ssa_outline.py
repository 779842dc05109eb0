#!/usr/bin/env python3
"""Print the outline of a program's SSA: regions, loop-carried values, branches, loads, stores and
the compute, with address and mask arithmetic folded away.

The program is compiled with the `emit-ssa` command of this skill's references/project.md (FILE
fills `{file}`; ARGS are appended), or the IR is read from --ssa (a file, or - for stdin). An op
counts as address or mask arithmetic when its result's element type is an index or a boolean
(`: index`, `: i1`, `tile<index[...]>`, `tile<i1[...]>`); --all keeps every line. Run it from the
project's root.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1] / "references" / "project.md"
ADDRESS_TYPES = ("index", "i1")
RESULT_TYPE = re.compile(r":\s*(?:\w+<)?(\w+)[^:]*$")
DEFINES = re.compile(r"^\s*%[\w%, ]+=\s*([a-z_]+)\.")
HEADER_WIDTH = 100


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


def read_ir(arguments: argparse.Namespace) -> str:
    if arguments.ssa:
        return sys.stdin.read() if arguments.ssa == "-" else Path(arguments.ssa).read_text()
    if not arguments.file:
        raise SystemExit("give a program FILE or --ssa PATH")
    command = project_value("Commands", "emit-ssa").format(file=shlex.quote(arguments.file))
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


def is_address_math(line: str) -> bool:
    """An op (not control flow or memory) whose result is an index or boolean value."""
    defines = DEFINES.match(line)
    if not defines or defines[1] in ("scf", "mem"):
        return False
    result = RESULT_TYPE.search(line)
    return result is not None and result[1] in ADDRESS_TYPES


def outline(ir: str, keep_all: bool = False) -> list[str]:
    lines, hidden, indent = [], 0, ""
    for line in ir.splitlines():
        if not keep_all and is_address_math(line):
            hidden, indent = hidden + 1, line[: len(line) - len(line.lstrip())]
            continue
        if hidden:
            lines.append(f"{indent}... {hidden} address/mask op{'s' * (hidden > 1)}")
            hidden = 0
        if line.startswith("kernel @") and len(line) > HEADER_WIDTH:
            line = line[:HEADER_WIDTH] + " ..."
        lines.append(line)
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options go before FILE; everything after FILE is passed to the compile command.",
    )
    parser.add_argument("--ssa", help="read the IR from this file (- for stdin) instead")
    parser.add_argument("--all", action="store_true", help="keep address and mask arithmetic")
    parser.add_argument("file", nargs="?", help="the program to compile")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="extra compile arguments")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    print("\n".join(outline(read_ir(arguments), arguments.all)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
