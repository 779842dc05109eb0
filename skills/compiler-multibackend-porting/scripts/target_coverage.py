#!/usr/bin/env python3
"""Show, for every backend target, which registry ops it spells natively, which reach legal ops
through generic rewrites (and through which ops), and which it can neither spell nor rewrite;
plus its capabilities and the operand dtypes it restricts.

The registry, the targets and the rewrites are Python objects named MODULE:ATTRIBUTE in the APIs
table of this skill's references/project.md (`op-registry`, `targets`, `decompositions`). A target
needs `name` and `legal_ops`; `capabilities` and `operand_dtypes` are optional; a rewrite needs
`produces` (the ops it builds). An op that is neither native nor rewritable must be removed by an
earlier pass (a symbolic size bound by scheduling) or given a spelling. Run it from the project's
root with the project's interpreter. Exit status: 0, or 1 with --strict when an op is missing
that --allow does not list.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
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


def load(spec: str) -> object:
    """`module:attribute` of the project, imported from the directory the script runs in (its
    root), as the project's own code would be."""
    module, _, attribute = spec.partition(":")
    sys.path.insert(0, str(Path.cwd()))
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise SystemExit(
            f"{spec} (from {PROJECT}) does not import here ({error}); run this script from the "
            "project's root, and name the project's own registry in references/project.md"
        ) from None


def route(op: str, legal: set[str], rewrites: dict, seen: tuple[str, ...] = ()) -> list[str] | None:
    """The legal ops `op` ends up as ([op] when it is legal), or None when it cannot be lowered."""
    if op in legal:
        return [op]
    if op in seen or op not in rewrites:
        return None
    ends: list[str] = []
    for produced in sorted(rewrites[op].produces):
        further = route(produced, legal, rewrites, (*seen, op))
        if further is None:
            return None
        ends += [end for end in further if end not in ends]
    return ends


def coverage(target: object, registry: list[str], rewrites: dict) -> dict[str, list]:
    legal = set(target.legal_ops)
    result: dict[str, list] = {"native": [], "rewritten": [], "missing": []}
    for op in registry:
        ends = route(op, legal, rewrites)
        if ends is None:
            result["missing"].append(op)
        elif op in legal:
            result["native"].append(op)
        else:
            result["rewritten"].append((op, ends))
    return result


def report(target: object, result: dict[str, list]) -> list[str]:
    total = sum(len(ops) for ops in result.values())
    lines = [
        f"target {target.name}: {len(result['native'])} native, {len(result['rewritten'])} "
        f"rewritten, {len(result['missing'])} missing, of {total} registry ops"
    ]
    for op, through in result["rewritten"]:
        lines.append(f"  rewritten  {op} -> {', '.join(through)}")
    for op in result["missing"]:
        lines.append(f"  missing    {op}: no spelling, no generic rewrite")
    capabilities = getattr(target, "capabilities", {})
    if capabilities:
        listed = ", ".join(f"{key}={value}" for key, value in sorted(capabilities.items()))
        lines.append(f"  capabilities: {listed}")
    for op, dtypes in sorted(getattr(target, "operand_dtypes", {}).items()):
        lines.append(f"  {op} takes {', '.join(sorted(dtypes))} (others are widened)")
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", action="append", help="only this target (repeatable)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when an op is missing")
    parser.add_argument(
        "--allow", action="append", default=[], metavar="OP", help="with --strict: may be missing"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    registry = sorted(load(project_value("APIs", "op-registry")))
    targets = load(project_value("APIs", "targets"))
    rewrites = load(project_value("APIs", "decompositions"))
    names = arguments.target or sorted(targets)
    unknown = sorted(set(names) - set(targets))
    if unknown:
        print(f"no target {unknown[0]!r}; targets: {', '.join(sorted(targets))}", file=sys.stderr)
        return 2
    failed = False
    for name in names:
        result = coverage(targets[name], registry, rewrites)
        print("\n".join(report(targets[name], result)))
        failed |= bool(set(result["missing"]) - set(arguments.allow))
    return 1 if arguments.strict and failed else 0


if __name__ == "__main__":
    sys.exit(main())
