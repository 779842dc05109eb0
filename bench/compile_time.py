"""`make bench`: compile time of our whole pipeline against NineToothed 0.26's `make`, on the CPU.

Goal: our whole pipeline, for each backend, takes at most a quarter of NineToothed's single-backend
(Triton) code generation for the same program in geometric mean, and at most half for any one
program: ratios ours / NineToothed with a geometric mean <= 0.25 and each <= 0.5.

The programs are the suite's kernels and a set of the ntops corpus's kernels
(`compiler/compat/library_kernels.py`: ntops' own `premake` with fixed block sizes), the programs a
user writes; without the corpus (`--corpus`, default `../shared/corpora/ntops-*.tar.gz`) their rows
are skipped and the report says why. Both sides start from the program loaded under their library,
outside the timed region: a suite program file loaded afresh each repetition
(`compiler.suite.load_program`) with the suite's block sizes bound into the arrangement; an ntops
kernel's `premake` called afresh each repetition on `ntops.kernels` imported once per library
(`compiler/compat/library.py`). What is timed:

- ours, per backend: `compiler.dsl.make(...)` (the handle; it runs the arrangement) and
  `handle.compile(*args, **call_kwargs)`: the front end (the application's AST -> SSA), the whole
  pass pipeline and the emission of the source, for the CPU form of the backend (what
  `compiler.suite.checking.build` + a first call do, less the launch). `compile` neither launches
  the kernel nor builds a binary: the native compilation of the emitted source (Triton, g++,
  TileLang, TVM) belongs to the launchers and is timed on neither side. A handle caches its
  artifacts (`_artifacts`), so every repetition makes a fresh handle; the compiler keeps no other
  cache of work done (block sizes are bound, so nothing is autotuned either).
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

Each (program, side) is warmed up once (imports, first-call effects), then timed `--repeat` times
(default 5), NineToothed and the backends interleaved in each round; the table gives medians.
The objects alive when measuring starts (the libraries) are frozen out of the garbage collector
(`gc.freeze`), which is run before each repetition and stays on during it. For each pair over its
target the report says where our time went: the arrangement (`make`), the passes (the trace's
seconds, the slowest named) and the rest of `compile` (front end, printing and verifying the IR
after each pass, emission).

    TRITON_INTERPRET=1 python bench/compile_time.py [--repeat N] [--kernel NAME ...]
        [--backend NAME ...] [--corpus PATH] [--out PATH]
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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import ninetoothed
import sympy.core.cache

import compiler.dsl
from compiler.backends import TARGETS
from compiler.compat.corpus import default_corpus
from compiler.compat.library_kernels import NTOPS_KERNELS, LibraryKernel, load_kernels
from compiler.errors import CompileError
from compiler.suite import SUITE, SuiteKernel, load_program
from compiler.suite.loader import bound_arrangement
from compiler.suite.reference_ninetoothed import cpu_driver

RESULTS = Path(__file__).parent / "results" / "compile_time.md"
MEAN_GOAL, EACH_GOAL = 0.25, 0.5
GOAL = (
    "goal: our whole pipeline (front end + passes + emission), for each backend, at most "
    f"{MEAN_GOAL}x NineToothed's single-backend code generation in geometric mean over the "
    f"programs, and at most {EACH_GOAL}x for any one program"
)
LIBRARY_KERNELS = {kernel.name: kernel for kernel in NTOPS_KERNELS}


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions (default 5)")
    parser.add_argument("--kernel", action="append", help="only these programs (default: all)")
    parser.add_argument("--backend", action="append", help="only these backends (default: all)")
    parser.add_argument(
        "--corpus", type=Path, default=default_corpus(), help="the ntops corpus (tarball or folder)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the table")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    known = [*SUITE, *LIBRARY_KERNELS]
    for name in args.kernel or ():
        if name not in known:
            parser.error(f"unknown kernel {name!r}; one of {', '.join(known)}")
    for name in args.backend or ():
        if name not in TARGETS:
            parser.error(f"unknown backend {name!r}; one of {', '.join(sorted(TARGETS))}")
    return args


# -- the programs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Program:
    """One program both sides compile: `load(library)` gives its (arrangement, application,
    tensors) under `library` (`compiler.dsl` or `ninetoothed`), outside the timed region."""

    name: str
    load: Callable[[ModuleType], tuple]
    make_args: Callable[[], list]
    call_kwargs: Mapping = field(default_factory=dict)


def suite_program(kernel: SuiteKernel) -> Program:
    def load(library: ModuleType) -> tuple:
        module = load_program(kernel.path, library)
        arrangement = bound_arrangement(module.arrangement, kernel.arrangement_kwargs)
        return arrangement, module.application, module.tensors

    return Program(kernel.name, load, lambda: kernel.make_args(0), kernel.call_kwargs)


def library_programs(
    kernels: list[LibraryKernel], corpus: Path | None
) -> tuple[list[Program], str | None]:
    """The corpus kernels as programs, or none and why."""
    if not kernels:
        return [], None
    if corpus is None:
        return [], "no ntops corpus (../shared/corpora/ntops-*.tar.gz, or give --corpus)"
    try:
        packages = {
            library: load_kernels(corpus, library) for library in (compiler.dsl, ninetoothed)
        }
    except (CompileError, ImportError) as error:
        return [], f"the ntops corpus at {corpus} does not load: {error}"
    return [
        Program(
            kernel.name, lambda library, k=kernel: k.program(packages[library]), kernel.make_args
        )
        for kernel in kernels
    ], None


# -- the two sides --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One timed compile of ours: the whole, the handle's making and the passes' share, and how
    many ops the front end emitted and the first `ssa.canonicalize` kept of them."""

    seconds: float
    make_seconds: float
    pass_seconds: dict[str, float]
    ops_emitted: int
    ops_kept: int


def time_ours(program: Program, backend: str, args: list) -> Sample:
    """One fresh handle making the artifact (as `compiler.suite.checking.build` + compile, with
    the program loaded beforehand)."""
    arrangement, application, tensors = program.load(compiler.dsl)
    gc.collect()
    start = time.perf_counter()
    handle = compiler.dsl.make(arrangement, application, tensors, backend=backend, device="cpu")
    made = time.perf_counter()
    handle.kernel_name = program.name.replace(".", "_")  # an identifier in every language
    artifact = handle.compile(*args, **program.call_kwargs)
    end = time.perf_counter()
    if not artifact.source:
        raise RuntimeError(f"{program.name}/{backend}: empty source")
    passes: dict[str, float] = {}
    for entry in artifact.trace:
        passes[entry["pass"]] = passes.get(entry["pass"], 0.0) + entry["seconds"]
    first = artifact.trace[0]
    emitted = sum(first["op_counts"].values()) - sum(first["op_count_delta"].values())
    canonical = next(e for e in artifact.trace if e["pass"] == "ssa.canonicalize")
    return Sample(end - start, made - start, passes, emitted, sum(canonical["op_counts"].values()))


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


def time_ninetoothed(program: Program, scratch: Path) -> tuple[float, float]:
    """Seconds for `ninetoothed.make` to generate, write and import the kernel, and of those the
    import's; `scratch` is a fresh empty directory."""
    arrangement, application, tensors = program.load(ninetoothed)
    with cpu_driver(), _fresh_ninetoothed_cache(scratch) as imports:
        gc.collect()
        start = time.perf_counter()
        handle = ninetoothed.make(arrangement, application, tensors)
        seconds = time.perf_counter() - start
    source = Path(handle._source)
    if source.parent != scratch or not source.read_text():
        raise RuntimeError(f"{program.name}: NineToothed did not write its source to {scratch}")
    return seconds, sum(imports)


# -- measuring -----------------------------------------------------------------------------------


@dataclass
class Timings:
    """The timed repetitions of one program (warm-up dropped): NineToothed's make and its import's
    share, and ours per backend."""

    ninetoothed: list[float] = field(default_factory=list)
    ninetoothed_import: list[float] = field(default_factory=list)
    ours: dict[str, list[Sample]] = field(default_factory=dict)

    def theirs(self) -> float:
        return statistics.median(self.ninetoothed)

    def median(self, backend: str) -> float:
        return statistics.median(s.seconds for s in self.ours[backend])

    def ratio(self, backend: str) -> float:
        return self.median(backend) / self.theirs()


def measure(programs: list[Program], backends: list[str], repeat: int) -> dict[str, Timings]:
    results = {}
    gc.collect()
    gc.freeze()  # what is alive now (torch, sympy, triton ...) is no longer traversed by gc
    try:
        with tempfile.TemporaryDirectory(prefix="ntc-bench-") as root:
            for program in programs:
                results[program.name] = _measure_program(program, backends, repeat, Path(root))
    finally:
        gc.unfreeze()
    return results


def _measure_program(program: Program, backends: list[str], repeat: int, root: Path) -> Timings:
    args = program.make_args()
    timings = Timings(ours={backend: [] for backend in backends})
    print(f"{program.name}: warm-up + {repeat} runs ...", flush=True)
    for round_ in range(repeat + 1):  # round 0 warms up
        scratch = root / f"{program.name}-{round_}"
        scratch.mkdir()
        make_s, import_s = time_ninetoothed(program, scratch)
        ours = {backend: time_ours(program, backend, args) for backend in backends}
        if round_:
            timings.ninetoothed.append(make_s)
            timings.ninetoothed_import.append(import_s)
            for backend, sample in ours.items():
                timings.ours[backend].append(sample)
    cells = [
        f"{backend} {1e3 * timings.median(backend):.1f} ms ({timings.ratio(backend):.2f}x)"
        for backend in backends
    ]
    print(
        f"  NineToothed make {1e3 * timings.theirs():.1f} ms; ours:", ", ".join(cells), flush=True
    )
    return timings


# -- reporting ------------------------------------------------------------------------------------


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(results: dict[str, Timings], backends: list[str]) -> list[str]:
    header = (
        ["kernel", "NineToothed make (ms)"]
        + [f"ours {b} (ms)" for b in backends]
        + [f"{b} / NineToothed" for b in backends]
    )
    rows = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for name, timings in results.items():
        cells = [name, f"{1e3 * timings.theirs():.1f}"]
        cells += [f"{1e3 * timings.median(b):.1f}" for b in backends]
        cells += [f"{timings.ratio(b):.2f}" for b in backends]
        rows.append("| " + " | ".join(cells) + " |")
    cells = ["geometric mean", f"{1e3 * geomean([t.theirs() for t in results.values()]):.1f}"]
    cells += [f"{1e3 * geomean([t.median(b) for t in results.values()]):.1f}" for b in backends]
    cells += [f"{geomean([t.ratio(b) for t in results.values()]):.2f}" for b in backends]
    rows.append("| " + " | ".join(cells) + " |")
    return rows


def verdict(results: dict[str, Timings], backends: list[str]) -> list[str]:
    means = {b: geomean([t.ratio(b) for t in results.values()]) for b in backends}
    ratios = {f"{n}/{b}": t.ratio(b) for n, t in results.items() for b in backends}
    over = [pair for pair, ratio in ratios.items() if ratio > EACH_GOAL]
    worst = max(ratios, key=ratios.get)
    if len(over) > 8:  # too many to list: count them per backend
        counts = {b: sum(pair.endswith(f"/{b}") for pair in over) for b in backends}
        listed = [f"{n} for {b}" for b, n in counts.items() if n]
    else:
        listed = over
    missed = [b for b in backends if means[b] > MEAN_GOAL]
    import_share = geomean(
        [statistics.median(t.ninetoothed_import) / t.theirs() for t in results.values()]
    )
    return [
        f"geometric mean <= {MEAN_GOAL}: "
        + ("met for every backend" if not missed else f"missed for {', '.join(missed)}")
        + " ("
        + ", ".join(f"{b} {means[b]:.2f}" for b in backends)
        + ")",
        f"each program <= {EACH_GOAL}: met for {len(ratios) - len(over)} of {len(ratios)} "
        "(program, backend) pairs"
        + (f"; over: {', '.join(listed)}" if over else "")
        + f"; highest ratio {ratios[worst]:.2f} ({worst})",
        f"importing the generated file is {100 * import_share:.0f}% (geometric mean) of "
        "NineToothed's make; the rest is its code generation",
    ]


def breakdown(results: dict[str, Timings], backends: list[str]) -> list[str]:
    """Where our time went, for each pair above the mean's goal (medians)."""
    header = [
        "kernel",
        "backend",
        "ratio",
        "ours (ms)",
        "make (ms)",
        "passes (ms)",
        "slowest pass (ms)",
        "rest of compile (ms)",
        "ops emitted -> kept",
    ]
    rows = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for name, timings in results.items():
        for backend in backends:
            if timings.ratio(backend) <= MEAN_GOAL:
                continue
            samples = timings.ours[backend]
            total = timings.median(backend)
            made = statistics.median(s.make_seconds for s in samples)
            per_pass = {
                p: statistics.median(s.pass_seconds[p] for s in samples)
                for p in samples[0].pass_seconds
            }
            passes = statistics.median(sum(s.pass_seconds.values()) for s in samples)
            slowest = max(per_pass, key=per_pass.get)
            cells = [name, backend, f"{timings.ratio(backend):.2f}", f"{1e3 * total:.1f}"]
            cells += [f"{1e3 * made:.1f}", f"{1e3 * passes:.1f}"]
            cells += [f"{slowest} {1e3 * per_pass[slowest]:.1f}"]
            cells += [f"{1e3 * (total - made - passes):.1f}"]
            cells += [f"{samples[0].ops_emitted} -> {samples[0].ops_kept}"]
            rows.append("| " + " | ".join(cells) + " |")
    return rows if len(rows) > 2 else []


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
    names = args.kernel or [*SUITE, *LIBRARY_KERNELS]
    backends = args.backend or sorted(TARGETS)
    programs = [suite_program(SUITE[n]) for n in names if n in SUITE]
    library, skipped = library_programs(
        [LIBRARY_KERNELS[n] for n in names if n in LIBRARY_KERNELS], args.corpus
    )
    programs += library
    skip_note = [f"ntops kernels skipped: {skipped}"] if skipped else []
    print(f"compile-time bench on {machine()}: {len(programs)} programs x {backends}")
    print(GOAL, *skip_note, sep="\n", flush=True)
    if not programs:
        print("nothing to measure")
        return 1
    load_before = os.getloadavg()[0]
    results = measure(programs, backends, args.repeat)
    load = (
        f"the load average (1 minute) was {load_before:.1f} before measuring and "
        f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs: above 1, other processes "
        "shared the machine, and the medians carry their noise"
    )
    rows = table(results, backends)
    notes = [*verdict(results, backends), load, *skip_note]
    where = breakdown(results, backends)
    print("\n".join(["", *rows, "", *notes, "", *where]))
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
        "cleared. Native compilation of the sources is timed on neither side. The programs are "
        "the suite's kernels and, named `ntops.*`, ntops kernels made by their own `premake` "
        "(`bench/compile_time.py` says more).",
        "",
        GOAL[0].upper() + GOAL[1:] + ".",
        "",
        *rows,
        "",
        *(f"- {note}" for note in notes),
    ]
    if where:
        document += [
            "",
            f"## Where our time goes, for the pairs above {MEAN_GOAL}x",
            "",
            "Medians, ms. `make`: the handle (the arrangement run on our Tensors); passes: the "
            "trace's seconds, the slowest pass named; the rest of `compile`: the front end (the "
            "application's AST to SSA), printing and verifying the IR after each pass, copying "
            "it, and emitting the source. Ops emitted -> kept: the front end's ops (every "
            "level's index arithmetic and bounds checks) and those the first `ssa.canonicalize` "
            "keeps; the front end, the first printing, verifying and copying, and that "
            "canonicalization all walk the emitted ops, one Python call or more per op.",
            "",
            *where,
        ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(document) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
