"""`make demo`: compile every suite kernel, run it on the CPU, check it against torch, and show the
SSA and pass trace of one."""

from __future__ import annotations

import sys

from compiler.checking import check
from compiler.suite import SUITE


def run_demo(backend: str, show: str) -> None:
    print(f"Compiling the kernel suite for {backend} and checking each against torch (CPU).")
    results = []
    for name, kernel in SUITE.items():
        result = check(kernel, backend)
        results.append(result)
        status = "ok  " if result.passed else "FAIL"
        print(f"  {status} {name:28} {result.seconds:6.2f} s   max |error| {result.max_error:.2e}")
        sys.stdout.flush()
    shown = next((r for r in results if r.name == show), results[0])
    artifact = shown.artifact
    print(f"\nSSA of {shown.name} after the pipeline:\n")
    print(artifact.ssa)
    print(f"Pass trace of {shown.name}:")
    for entry in artifact.trace:
        delta = ", ".join(f"{k} {v:+d}" for k, v in entry["op_count_delta"].items()) or "-"
        changed = "changed" if entry["changed"] else "unchanged"
        print(f"  {entry['pass']:36} {changed:9} {entry['seconds'] * 1e3:7.2f} ms  {delta}")
    print(f"\nEmitted {backend} source of {shown.name}:\n")
    print(artifact.source)
    failed = [r.name for r in results if not r.passed]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        raise SystemExit(1)
