"""`make bench`: compile time of our whole pipeline against NineToothed 0.26's `make`, on the CPU.

Goal: our whole pipeline, for any one backend, should be no slower than NineToothed's
single-backend (Triton) code generation for the same program: every ratio ours / NineToothed <= 1.

For each suite kernel, both sides start from the program file loaded under their library
(`compiler.suite.load_program`, outside the timed region, a fresh module per repetition) with the
suite's block sizes bound into the arrangement. What is timed:

- ours, per backend: `compiler.dsl.make(...)` (the handle; it runs the arrangement) and
  `handle.compile(*args, **call_kwargs)`: the front end (the application's AST -> SSA), the whole
  pass pipeline and the emission of the source, for the CPU form of the backend (what
  `compiler.suite.checking.build` + a first call do, less the launch). `compile` neither launches
  the kernel nor builds a binary: the native compilation of the emitted source (Triton, g++,
  TileLang, TVM) belongs to the launchers and is timed on neither side. A handle caches its
  artifacts (`_artifacts`), so every repetition makes a fresh handle; the compiler keeps no other
  cache of work done (the suite binds every block size, so nothing is autotuned either).
- NineToothed: `ninetoothed.make(arrangement, application, tensors)` with
  `compiler.suite.reference_ninetoothed.cpu_driver()` active (it only answers NineToothed's GPU
  device queries). NineToothed generates eagerly, at make time: the arrangement, the AST
  rewriting of the application into Triton with its launch function (sympy simplification
  included), `ast.unparse`, writing the source to its cache directory (`~/.ninetoothed/<sha256 of
  the source>.py`, written only when absent) and importing that file (the `@triton.jit`
  decorations run; nothing is compiled by Triton until a launch). To regenerate every repetition
  `ninetoothed.generation.CACHE_DIR` points at a fresh empty directory (so the file and its
  bytecode are written anew) and sympy's memoisation cache is cleared before each repetition.
  The share of the import is reported under the table.

Each (kernel, side) is warmed up once (imports, first-call effects), then timed `--repeat` times
(default 5), NineToothed and the backends interleaved in each round; the table gives medians.
The objects alive when measuring starts (the libraries) are frozen out of the garbage collector
(`gc.freeze`), which is run before each repetition and stays on during it.

    TRITON_INTERPRET=1 python bench/compile_time.py [--repeat N] [--kernel NAME ...]
        [--backend NAME ...] [--out PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import importlib
import importlib.metadata
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import ninetoothed
import sympy.core.cache

import compiler.dsl
from compiler.backends import TARGETS
from compiler.suite import SUITE, SuiteKernel, load_program
from compiler.suite.loader import bound_arrangement
from compiler.suite.reference_ninetoothed import cpu_driver

RESULTS = Path(__file__).parent / "results" / "compile_time.md"
GOAL = (
    "goal: our whole pipeline (front end + passes + emission), for each backend, no slower than "
    "NineToothed's single-backend code generation (ratio ours / NineToothed <= 1)"
)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions (default 5)")
    parser.add_argument("--kernel", action="append", help="only these kernels (default: all)")
    parser.add_argument("--backend", action="append", help="only these backends (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the table")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    for name in args.kernel or ():
        if name not in SUITE:
            parser.error(f"unknown kernel {name!r}; one of {', '.join(sorted(SUITE))}")
    for name in args.backend or ():
        if name not in TARGETS:
            parser.error(f"unknown backend {name!r}; one of {', '.join(sorted(TARGETS))}")
    return args


# -- the two sides --------------------------------------------------------------------------------


def time_ours(kernel: SuiteKernel, backend: str, args: list) -> float:
    """Seconds for one fresh handle to make the artifact (as `compiler.suite.checking.build` +
    compile, with the program loaded beforehand)."""
    module = load_program(kernel.path, compiler.dsl)
    arrangement = bound_arrangement(module.arrangement, kernel.arrangement_kwargs)
    gc.collect()
    start = time.perf_counter()
    handle = compiler.dsl.make(
        arrangement, module.application, module.tensors, backend=backend, device="cpu"
    )
    handle.kernel_name = kernel.name
    artifact = handle.compile(*args, **kernel.call_kwargs)
    seconds = time.perf_counter() - start
    if not artifact.source:
        raise RuntimeError(f"{kernel.name}/{backend}: empty source")
    return seconds


@contextlib.contextmanager
def _fresh_ninetoothed_cache(directory: Path) -> Iterator[list[float]]:
    """NineToothed writes to `directory`; yields a list that receives the import's seconds."""
    generation = importlib.import_module("ninetoothed.generation")
    jit_module = importlib.import_module("ninetoothed.jit")
    saved_dir, saved_import = generation.CACHE_DIR, jit_module.import_from_path
    imports: list[float] = []

    def timed_import(module_name, file_path):
        start = time.perf_counter()
        try:
            return saved_import(module_name, file_path)
        finally:
            imports.append(time.perf_counter() - start)
            sys.modules.pop(module_name, None)  # a new path each time; only stops a pile-up

    generation.CACHE_DIR = directory
    jit_module.import_from_path = timed_import
    sympy.core.cache.clear_cache()
    try:
        yield imports
    finally:
        generation.CACHE_DIR = saved_dir
        jit_module.import_from_path = saved_import


def time_ninetoothed(kernel: SuiteKernel, scratch: Path) -> tuple[float, float]:
    """Seconds for `ninetoothed.make` to generate, write and import the kernel, and of those the
    import's; `scratch` is a fresh empty directory."""
    module = load_program(kernel.path, ninetoothed)
    arrangement = bound_arrangement(module.arrangement, kernel.arrangement_kwargs)
    with cpu_driver(), _fresh_ninetoothed_cache(scratch) as imports:
        gc.collect()
        start = time.perf_counter()
        handle = ninetoothed.make(arrangement, module.application, module.tensors)
        seconds = time.perf_counter() - start
    source = Path(handle._source)
    if source.parent != scratch or not source.read_text():
        raise RuntimeError(f"{kernel.name}: NineToothed did not write its source to {scratch}")
    return seconds, sum(imports)


# -- measuring and reporting ----------------------------------------------------------------------


def measure(
    kernels: list[str], backends: list[str], repeat: int
) -> dict[str, dict[str, list[float]]]:
    """kernel -> {"ninetoothed": [...], "ninetoothed import": [...], backend: [...]}: seconds of
    the timed repetitions (warm-up dropped)."""
    results = {}
    gc.collect()
    gc.freeze()  # what is alive now (torch, sympy, triton ...) is no longer traversed by gc
    try:
        with tempfile.TemporaryDirectory(prefix="ntc-bench-") as root:
            for name in kernels:
                results[name] = _measure_kernel(SUITE[name], backends, repeat, Path(root))
    finally:
        gc.unfreeze()
    return results


def _measure_kernel(
    kernel: SuiteKernel, backends: list[str], repeat: int, root: Path
) -> dict[str, list[float]]:
    args = kernel.make_args(0)
    samples: dict[str, list[float]] = {"ninetoothed": [], "ninetoothed import": []}
    samples.update({backend: [] for backend in backends})
    print(f"{kernel.name}: warm-up + {repeat} runs ...", flush=True)
    for round_ in range(repeat + 1):  # round 0 warms up
        scratch = root / f"{kernel.name}-{round_}"
        scratch.mkdir()
        make_s, import_s = time_ninetoothed(kernel, scratch)
        ours = {backend: time_ours(kernel, backend, args) for backend in backends}
        if round_:
            samples["ninetoothed"].append(make_s)
            samples["ninetoothed import"].append(import_s)
            for backend, seconds in ours.items():
                samples[backend].append(seconds)
    theirs = statistics.median(samples["ninetoothed"])
    cells = [
        f"{backend} {1e3 * statistics.median(samples[backend]):.1f} ms "
        f"({statistics.median(samples[backend]) / theirs:.2f}x)"
        for backend in backends
    ]
    print(f"  NineToothed make {1e3 * theirs:.1f} ms; ours:", ", ".join(cells), flush=True)
    return samples


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(results: dict[str, dict[str, list[float]]], backends: list[str]) -> list[str]:
    header = (
        ["kernel", "NineToothed make (ms)"]
        + [f"ours {b} (ms)" for b in backends]
        + [f"{b} / NineToothed" for b in backends]
    )
    rows = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    columns: dict[str, list[float]] = {"ninetoothed": [], **{b: [] for b in backends}}
    ratios: dict[str, list[float]] = {b: [] for b in backends}
    for name, samples in results.items():
        theirs = statistics.median(samples["ninetoothed"])
        columns["ninetoothed"].append(theirs)
        cells = [name, f"{1e3 * theirs:.1f}"]
        for backend in backends:
            ours = statistics.median(samples[backend])
            columns[backend].append(ours)
            ratios[backend].append(ours / theirs)
            cells.append(f"{1e3 * ours:.1f}")
        cells += [f"{ratios[b][-1]:.2f}" for b in backends]
        rows.append("| " + " | ".join(cells) + " |")
    cells = ["geometric mean", f"{1e3 * geomean(columns['ninetoothed']):.1f}"]
    cells += [f"{1e3 * geomean(columns[b]):.1f}" for b in backends]
    cells += [f"{geomean(ratios[b]):.2f}" for b in backends]
    rows.append("| " + " | ".join(cells) + " |")
    return rows


def verdict(results: dict[str, dict[str, list[float]]], backends: list[str]) -> list[str]:
    ratios = {
        f"{name}/{backend}": statistics.median(samples[backend])
        / statistics.median(samples["ninetoothed"])
        for name, samples in results.items()
        for backend in backends
    }
    slower = [pair for pair, ratio in ratios.items() if ratio > 1]
    worst = max(ratios, key=ratios.get)
    if len(slower) > 8:  # too many to list: count them per backend
        counts = {b: sum(pair.endswith(f"/{b}") for pair in slower) for b in backends}
        listed = [f"{n} for {b}" for b, n in counts.items() if n]
    else:
        listed = slower
    import_share = geomean(
        [
            statistics.median(s["ninetoothed import"]) / statistics.median(s["ninetoothed"])
            for s in results.values()
        ]
    )
    return [
        f"goal met for {len(ratios) - len(slower)} of {len(ratios)} (kernel, backend) pairs"
        + (f"; slower: {', '.join(listed)}" if slower else "")
        + f"; highest ratio {ratios[worst]:.2f} ({worst})",
        f"importing the generated file is {100 * import_share:.0f}% (geometric mean) of "
        "NineToothed's make; the rest is its code generation",
    ]


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    return f"{platform.system()} {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    kernels = args.kernel or list(SUITE)
    backends = args.backend or sorted(TARGETS)
    print(f"compile-time bench on {machine()}: {len(kernels)} kernels x {backends}")
    print(GOAL, flush=True)
    results = measure(kernels, backends, args.repeat)
    rows = table(results, backends)
    notes = verdict(results, backends)
    print("\n".join(["", *rows, "", *notes]))
    versions = " · ".join(
        f"{p} {_version(p)}" for p in ("ntc-workbench", "ninetoothed", "triton", "torch", "sympy")
    )
    document = [
        "# Compile time: our pipeline against NineToothed's make",
        "",
        f"{datetime.date.today()} · {machine()} · {versions}",
        "",
        f"Medians of {args.repeat} repetition(s) after one warm-up, on the CPU. Ours: "
        "`compiler.dsl.make` + `handle.compile` (front end, passes, emission) for the backend's "
        "CPU form, a fresh handle each time. NineToothed: `ninetoothed.make` (code generation, "
        "writing the source, importing it) into a fresh cache directory each time, sympy's cache "
        "cleared. Native compilation of the sources is timed on neither side "
        "(`bench/compile_time.py` says more).",
        "",
        GOAL[0].upper() + GOAL[1:] + ".",
        "",
        *rows,
        "",
        *(f"- {note}" for note in notes),
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(document) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
