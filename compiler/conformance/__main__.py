"""`python -m compiler.conformance [--op NAME ...] [--backend NAME ...] [--seed N]`: run the
conformance kernels of the ops (default: every testable op) on the backends (default: every CPU
backend) against the IR interpreter; exit 1 and print each mismatch when any."""

from __future__ import annotations

import argparse
import sys

from compiler.conformance import conform, testable_ops


def main(argv: list[str] | None = None) -> int:
    from compiler.backends import TARGETS

    parser = argparse.ArgumentParser(prog="python -m compiler.conformance", description=__doc__)
    parser.add_argument("--op", action="append", help="an op of the registry (may repeat)")
    parser.add_argument("--backend", action="append", choices=sorted(TARGETS))
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)
    ops = arguments.op or testable_ops()
    backends = arguments.backend or sorted(TARGETS)
    untestable = sorted(set(ops) - set(testable_ops()))
    if untestable:
        print(
            f"conformance: {', '.join(untestable)} has no elementwise form to build from its "
            "registry entry (an attribute without a domain in compiler/conformance/forms.py, "
            "regions, effects, or a result of another shape)",
            file=sys.stderr,
        )
        return 2
    mismatches = []
    for number, op in enumerate(ops, 1):
        found = conform(op, backends, arguments.seed)
        print(f"[{number}/{len(ops)}] {op}: {len(found) or 'no'} mismatches", file=sys.stderr)
        mismatches += found
    for mismatch in mismatches:
        print(mismatch)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
