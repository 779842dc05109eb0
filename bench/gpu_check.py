"""`make gpu-check`: the kernel x backend matrix on a CUDA GPU.

Every suite kernel is compiled for every backend's CUDA form, run on the GPU on fresh random inputs
with poisoned outputs and compared with torch (computed on the CPU). Prints a table and writes it
to `bench/results/gpu_check.md`. Needs a CUDA GPU; the test suite runs it with `--device cpu` on
one kernel to check the script itself.

    python bench/gpu_check.py [--device cuda] [--kernel NAME ...] [--backend NAME ...] [--out PATH]
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

import torch

from compiler.backends import TARGETS
from compiler.suite import SUITE
from compiler.suite.checking import check

RESULTS = Path(__file__).parent / "results" / "gpu_check.md"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--kernel", action="append", help="only these kernels (default: all)")
    parser.add_argument("--backend", action="append", help="only these backends (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the table")
    return parser.parse_args(argv)


def device_name(device: str) -> str:
    if device == "cpu":
        return f"CPU ({platform.processor() or platform.machine()})"
    return torch.cuda.get_device_name()


def run(kernels: list[str], backends: list[str], device: str) -> tuple[list[str], bool]:
    rows = ["| kernel | " + " | ".join(backends) + " |", "|---" * (len(backends) + 1) + "|"]
    ok = True
    for name in kernels:
        cells = []
        for backend in backends:
            try:
                result = check(SUITE[name], backend, seed=7, device=device)
                cells.append(f"{'ok' if result.passed else 'FAIL'} {result.seconds:.2f} s")
                ok &= result.passed
            except Exception as error:  # a table cell per failure; the run goes on
                cells.append(f"ERROR {type(error).__name__}: {str(error)[:80]}")
                ok = False
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    return rows, ok


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("gpu-check: no CUDA GPU here; run it on a GPU machine (the tests never need one)")
        return 2
    kernels = args.kernel or sorted(SUITE)
    backends = args.backend or sorted(TARGETS)
    start = time.perf_counter()
    print(f"gpu-check on {device_name(args.device)}: {len(kernels)} kernels x {backends}")
    rows, ok = run(kernels, backends, args.device)
    header = [
        f"# Kernel x backend check on {device_name(args.device)}",
        "",
        f"{datetime.date.today()} · torch {torch.__version__} · "
        f"{time.perf_counter() - start:.0f} s in all · cells: result, compile + build + run time",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(header + rows) + "\n")
    print(f"wrote {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
