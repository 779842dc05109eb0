#!/usr/bin/env python3
"""Count the IR ops of a program by dialect and op, and flag ops outside the op registry.

The program is compiled with the `emit-ssa` command of this skill's references/project.md (FILE
fills `{file}`; ARGS are appended), or the IR is read from --ssa (a file, or - for stdin). The IR
text is MLIR-like: one op per line, `%r = dialect.op(...)` or `dialect.op(...)`, and a kernel
starts at a line `kernel @name(...`. Run it from the project's root.

Use it to see what a kernel is made of: a fused kernel should be loops and generic ops
(dot, max, exp2, sum, where, load, store), never a node named after an operator.
Exit status: 0, or 1 when an --expect op is missing or an op is not in the registry.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1] / "references" / "project.md"
OP = re.compile(r"^\s*(?:%[\w%, ]+=\s*)?([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\(")
KERNEL = re.compile(r"^kernel @([\w.]+)")


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


def registry_ops(spec: str) -> set[str] | None:
    if spec == "none":
        return None
    module, _, attribute = spec.partition(":")
    sys.path.insert(0, str(Path.cwd()))  # the project's root, where the script runs
    try:
        return set(getattr(importlib.import_module(module), attribute))
    except (ImportError, AttributeError) as error:
        raise SystemExit(
            f"--registry {spec} does not import here ({error}); run this script from the "
            "project's root, name the registry in references/project.md, or give --registry none"
        ) from None


def census(ir: str) -> dict[str, Counter]:
    """Op counts per kernel, in the order the kernels appear."""
    kernels: dict[str, Counter] = {}
    current = kernels.setdefault("(ir)", Counter())
    for line in ir.splitlines():
        header = KERNEL.match(line)
        if header:
            current = kernels.setdefault(header[1], Counter())
        elif match := OP.match(line):
            current[match[1]] += 1
    return {name: counts for name, counts in kernels.items() if counts}


def report(name: str, counts: Counter, registry: set[str] | None) -> list[str]:
    lines = [f"kernel {name}: {sum(counts.values())} ops, {len(counts)} distinct"]
    dialects = sorted({op.split(".")[0] for op in counts})
    for dialect in dialects:
        ops = sorted((op, n) for op, n in counts.items() if op.startswith(dialect + "."))
        listed = ", ".join(f"{op.split('.', 1)[1]} {n}" for op, n in ops)
        lines.append(f"  {dialect:8} {sum(n for _, n in ops):5}  {listed}")
    if registry is not None:
        unknown = sorted(set(counts) - registry)
        lines.append(f"  not in the registry: {', '.join(unknown) or 'none'}")
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Options go before FILE; everything after FILE is passed to the compile command.",
    )
    parser.add_argument("--ssa", help="read the IR from this file (- for stdin) instead")
    parser.add_argument("--expect", action="append", default=[], metavar="OP", help="required op")
    parser.add_argument(
        "--registry",
        help="MODULE:ATTRIBUTE of the op registry, or none "
        "(default: `op-registry` in references/project.md's APIs table)",
    )
    parser.add_argument("file", nargs="?", help="the program to compile")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="extra compile arguments")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    registry = registry_ops(arguments.registry or project_value("APIs", "op-registry"))
    kernels = census(read_ir(arguments))
    if not kernels:
        print("no ops found: is this the IR text?", file=sys.stderr)
        return 1
    failed = False
    for name, counts in kernels.items():
        print("\n".join(report(name, counts, registry)))
        missing = [op for op in arguments.expect if op not in counts]
        if missing:
            print(f"  missing expected ops: {', '.join(missing)}")
        failed |= bool(missing) or bool(registry is not None and set(counts) - registry)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
