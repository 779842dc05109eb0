"""`make demo`: compile every suite kernel for every backend, run each on the CPU, check it
against torch, print a kernel x backend table of times, and show the SSA, pass trace and source of
one kernel."""

from __future__ import annotations

import sys

from compiler.backends import TARGETS
from compiler.suite import SUITE
from compiler.suite.checking import CheckResult, check


def run_demo(backends: list[str] | None, show: str, show_backend: str) -> None:
    backends = backends or sorted(TARGETS)
    print(
        f"Compiling the kernel suite for {', '.join(backends)}, running every kernel on the CPU "
        "and checking it against torch (seconds: compile + build + run; first runs fill the "
        "build cache)."
    )
    print(f"\n  {'kernel':28}" + "".join(f"{b:>12}" for b in backends))
    results: dict[tuple[str, str], CheckResult] = {}
    for name, kernel in SUITE.items():
        cells = []
        for backend in backends:
            result = results[name, backend] = check(kernel, backend)
            cells.append(f"{result.seconds:7.2f} s" + ("  " if result.passed else " !"))
        print(f"  {name:28}" + "".join(f"{c:>12}" for c in cells))
        sys.stdout.flush()
    print("  (! = does not match torch)")
    shown = results.get((show, show_backend)) or next(iter(results.values()))
    artifact = shown.artifact
    print(f"\nSSA of {shown.name} for {shown.backend} after the pipeline:\n")
    print(artifact.ssa)
    print(f"Pass trace of {shown.name} for {shown.backend}:")
    for entry in artifact.trace:
        delta = ", ".join(f"{k} {v:+d}" for k, v in entry["op_count_delta"].items()) or "-"
        changed = "changed" if entry["changed"] else "unchanged"
        print(f"  {entry['pass']:36} {changed:9} {entry['seconds'] * 1e3:7.2f} ms  {delta}")
    print(f"\nEmitted {shown.backend} source of {shown.name}:\n")
    print(artifact.source)
    print("Other backends: ntc compile FILE.py --backend cuda|tilelang|tvm [--device cuda]")
    failed = [f"{r.name} ({r.backend})" for r in results.values() if not r.passed]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed {', '.join(failed)}".strip())
    if failed:
        raise SystemExit(1)
