"""`make gpu-bench`: the suite kernels timed on a CUDA GPU at realistic sizes, against the roofline.

For each suite kernel (``compiler.suite.SUITE``) at its GPU sizes (``SuiteKernel.bench_args``) and
GPU block sizes (``SuiteKernel.bench_blocks``: ``bench_array_arrangement_kwargs`` for the targets
whose ``tile_cap`` the others pass, CUDA C++'s static shared-memory arrays), five implementations:

- ``torch``: torch eager on the device (``SuiteKernel.torch_eager``, else ``reference``);
- ``triton``, ``cuda``, ``tilelang``: this compiler's output for that backend's GPU form
  (``compiler.suite.checking.build(kernel, backend, device="cuda")``);
- ``ninetoothed``: NineToothed 0.26's own kernel for the same program file.

Each cell: build, a first call (compiles; its wall time is the table's "first call"), a checked call
on NaN-poisoned outputs against the reference (computed once on the device; a mismatch is a FAIL
and is not timed), then ``triton.testing.do_bench`` (median; L2 flushed between runs) of the call
as a user makes it, the handle's argument binding included. ``SuiteKernel.cost`` gives the flops
and the compulsory bytes of one launch; the peaks are measured once (a 1 GiB device-to-device copy,
bytes = read + write; an 8192^3 bf16 ``torch.matmul``). The roofline table goes to
``<out>/gpu_bench.md``, the plot to ``<out>/gpu_roofline.png``. A cell that raises is recorded as
ERROR and the run goes on; once less than a cell's reserve of ``--budget-s`` is left, the remaining
cells are "skipped (time budget)" and the results are still written. Exit status 1 when a check
failed or a cell raised, 2 without a GPU.

``--dry-run``: the same code on the CPU at the suite's small sizes (``make_args(seed,
ragged=False)``, the suite's block sizes), our backends' CPU forms, NineToothed in Triton's
interpreter (``TRITON_INTERPRET=1``, set here before Triton is imported), a perf_counter median
instead of ``do_bench`` and CPU peaks (a 64 MiB copy, a 512^3 fp32 matmul). It checks the script,
not the CPU.

    python bench/gpu.py [--dry-run] [--kernel NAME ...] [--impl NAME ...] [--out DIR]
        [--budget-s SECONDS]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import math
import os
import platform as host
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from compiler.backends import get_target
from compiler.suite import SUITE, SuiteKernel, load_program
from compiler.suite.checking import build
from compiler.suite.kernel import INT_POISON
from compiler.suite.loader import bound_arrangement

RESULTS = Path(__file__).parent / "results"
DRY_RUN_RESULTS = RESULTS / "cpu_dry_run"
TABLE, PLOT = "gpu_bench.md", "gpu_roofline.png"
BACKENDS = ("triton", "cuda", "tilelang")  # this compiler's outputs
IMPLS = ("torch", "triton", "ninetoothed", "cuda", "tilelang")  # cheap first: see run()
SEED = 7
SKIPPED = "skipped (time budget)"


# -- the machine the run is on --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Platform:
    """What differs between the GPU run and the CPU dry run; everything else is shared."""

    name: str  # "cuda" or "cpu": the device tensors live on, and our backends' device form
    description: str
    gpu_sizes: bool  # bench_args and bench block sizes, else make_args(ragged=False)
    time_ms: Callable[[Callable[[], object]], float]  # median ms per call of a warmed-up fn
    timing_calls: int  # calls time_ms makes at most for a slow fn (budget estimate)
    sync: Callable[[], None]
    ninetoothed_context: Callable[[], contextlib.AbstractContextManager]
    reserve_s: float  # a cell starts only with this much of the budget left
    copy_bytes: int  # the peak-bandwidth copy's source size
    matmul: tuple[int, torch.dtype]  # the peak-compute matmul's size and dtype


def gpu_platform() -> Platform:
    import triton.testing

    def time_ms(fn):
        return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")

    return Platform(
        name="cuda",
        description=torch.cuda.get_device_name(),
        gpu_sizes=True,
        time_ms=time_ms,
        timing_calls=8,  # do_bench: 1 + 5 estimates + >= 1 warm-up + >= 1 timed
        sync=torch.cuda.synchronize,
        ninetoothed_context=contextlib.nullcontext,
        reserve_s=20.0,  # a TileLang compile (~5 s) and the timing of a slow kernel
        copy_bytes=2**30,
        matmul=(8192, torch.bfloat16),
    )


def cpu_platform(repeats: int = 3) -> Platform:
    from compiler.suite.reference_ninetoothed import cpu_driver

    def time_ms(fn):
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - start)
        return statistics.median(runs) * 1e3

    return Platform(
        name="cpu",
        description=f"CPU ({host.processor() or host.machine()}), dry run",
        gpu_sizes=False,
        time_ms=time_ms,
        timing_calls=repeats,
        sync=lambda: None,
        ninetoothed_context=cpu_driver,
        reserve_s=0.0,
        copy_bytes=2**26,
        matmul=(512, torch.float32),
    )


@dataclasses.dataclass(frozen=True)
class Peaks:
    bandwidth: float  # bytes/s
    flops: float  # flop/s
    describe: str

    def bound(self, intensity: float) -> float:
        """Attainable flop/s at `intensity` flop/byte: min(peak compute, AI x peak bandwidth)."""
        return min(self.flops, intensity * self.bandwidth)

    @property
    def ridge(self) -> float:
        return self.flops / self.bandwidth


def measure_peaks(platform: Platform) -> Peaks:
    """Bandwidth from a device-to-device copy (bytes = read + write), compute from a matmul."""
    source = torch.ones(platform.copy_bytes // 4, device=platform.name)
    target = torch.empty_like(source)
    bandwidth = 2 * platform.copy_bytes / (platform.time_ms(lambda: target.copy_(source)) / 1e3)
    size, dtype = platform.matmul
    a, b = (torch.randn(size, size, device=platform.name).to(dtype) for _ in range(2))
    flops = 2 * size**3 / (platform.time_ms(lambda: torch.matmul(a, b)) / 1e3)
    platform.sync()
    describe = (
        f"{bandwidth / 1e9:,.0f} GB/s ({platform.copy_bytes / 2**20:,.0f} MiB copy, read + "
        f"write), {_flops_text(flops)} ({size}^3 {str(dtype).removeprefix('torch.')} matmul)"
    )
    return Peaks(bandwidth, flops, describe)


# -- one kernel's inputs and one implementation ----------------------------------------------------


@dataclasses.dataclass
class Case:
    """A kernel's arguments on the device, the reference outputs and the cost of one launch."""

    args: list
    expected: list[torch.Tensor]
    flops: float
    bytes: float

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes


def make_case(kernel: SuiteKernel, platform: Platform) -> Case:
    if platform.gpu_sizes:
        args = kernel.bench_args(SEED, device=platform.name)
    else:
        args = [_to(a, platform.name) for a in kernel.make_args(SEED, ragged=False)]
    expected = [t.detach() for t in kernel.reference(args)]
    flops, moved = kernel.cost(args)
    platform.sync()
    return Case(args, expected, float(flops), float(moved))


def settings(kernel: SuiteKernel, impl: str, platform: Platform) -> tuple[dict, dict]:
    """(arrangement kwargs, call kwargs) for `impl`: the suite's, or the GPU block sizes."""
    if not platform.gpu_sizes:
        return dict(kernel.arrangement_kwargs), dict(kernel.call_kwargs)
    # A target that holds tiles in arrays of its own memory caps their edges (`tile_cap`).
    cap = get_target(impl, platform.name).capability("tile_cap") if impl in BACKENDS else None
    call = kernel.bench_call_kwargs if kernel.bench_call_kwargs is not None else kernel.call_kwargs
    return dict(kernel.bench_blocks(cap)), dict(call)


def runner(kernel: SuiteKernel, impl: str, platform: Platform) -> Callable[[list], list]:
    """`run(args) -> outputs` for `impl`: kernels write into `args`, torch returns new tensors."""
    if impl == "torch":
        compute = kernel.torch_eager or kernel.reference
        return lambda args: list(compute(args))
    arrangement_kwargs, call_kwargs = settings(kernel, impl, platform)
    if impl == "ninetoothed":
        import ninetoothed

        program = load_program(kernel.path, ninetoothed)
        arrangement = bound_arrangement(program.arrangement, arrangement_kwargs)
        handle = ninetoothed.make(arrangement, program.application, program.tensors)
    elif impl in BACKENDS:
        entry = dataclasses.replace(kernel, arrangement_kwargs=arrangement_kwargs)
        handle = build(entry, impl, device=platform.name)
    else:
        raise ValueError(f"unknown implementation {impl!r}; choose from {', '.join(IMPLS)}")

    def run(args):
        handle(*args, **call_kwargs)
        return [args[i] for i in kernel.outputs]

    return run


def compare(got: list, expected: list, kernel: SuiteKernel) -> tuple[bool, float]:
    """allclose with the entry's rtol, and its atol scaled by the largest expected magnitude
    (bench sizes sum thousands of products: absolute errors grow with the values)."""
    passed, worst = True, 0.0
    for value, want in zip(got, expected, strict=True):
        value, want = value.detach().double(), want.double()
        if value.shape != want.shape:
            return False, math.inf
        if want.is_floating_point():
            scale = max(1.0, want.abs().max().item()) if want.numel() else 1.0
            error = (value - want).abs().nan_to_num(math.inf).max().item() if want.numel() else 0.0
            passed &= torch.allclose(value, want, rtol=kernel.rtol, atol=kernel.atol * scale)
        else:
            error = float((value != want).sum().item())
            passed &= error == 0
        worst = max(worst, error)
    return bool(passed), worst


# -- the cells ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Cell:
    kernel: str
    impl: str
    status: str = SKIPPED  # ok | FAIL | ERROR | skipped (time budget)
    ms: float | None = None
    first_call_s: float | None = None
    note: str = ""
    flops: float = 0.0
    bytes: float = 0.0

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0

    @property
    def flop_rate(self) -> float | None:
        return self.flops / (self.ms / 1e3) if self.ms else None

    @property
    def byte_rate(self) -> float | None:
        return self.bytes / (self.ms / 1e3) if self.ms else None


class Budget:
    def __init__(self, seconds: float):
        self.start = time.perf_counter()
        self.deadline = self.start + seconds

    @property
    def left(self) -> float:
        return self.deadline - time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def run_cell(kernel: SuiteKernel, impl: str, case: Case, platform: Platform, budget: Budget):
    """Build, first call, checked call, timing; the cell records whatever happened."""
    cell = Cell(kernel.name, impl, flops=case.flops, bytes=case.bytes)
    if budget.left < platform.reserve_s:
        return cell
    outputs = set(kernel.outputs)
    context = platform.ninetoothed_context() if impl == "ninetoothed" else contextlib.nullcontext()
    try:
        # Fresh poisoned outputs per cell (inside the try: a failed launch can leave the GPU
        # erroring on every later call).
        args = [_poisoned_like(a) if i in outputs else a for i, a in enumerate(case.args)]
        with context:
            start = time.perf_counter()
            run = runner(kernel, impl, platform)
            run(args)  # compiles (ours, NineToothed's, Triton's, nvcc, TileLang) and warms up
            platform.sync()
            cell.first_call_s = time.perf_counter() - start
            for i in outputs:
                _poison(args[i])
            start = time.perf_counter()
            got = run(args)
            platform.sync()
            once = time.perf_counter() - start
            passed, error = compare(got, case.expected, kernel)
            if not passed:
                cell.status, cell.note = "FAIL", f"max |error| {error:.3g}"
                return cell
            cell.status = "ok"
            if once * platform.timing_calls > budget.left:
                cell.note = "checked, not timed (time budget)"
                return cell
            cell.ms = platform.time_ms(lambda: run(args))
    except Exception as error:  # a cell per failure; the run goes on
        cell.status, cell.ms = "ERROR", None
        cell.note = f"{type(error).__name__}: {' '.join(str(error).split())[:160]}"
    return cell


def run(
    kernels: list[str], impls: list[str], platform: Platform, budget: Budget, peaks: Peaks
) -> list[Cell]:
    """Implementation by implementation (torch and Triton first), each over every kernel: when
    the budget runs out, the cells left are the slow-to-build ones of the last implementations."""
    cases: dict[str, Case | Exception] = {}
    cells, total = [], len(kernels) * len(impls)
    for impl in impls:
        for name in kernels:
            kernel = SUITE[name]
            if name not in cases and budget.left >= platform.reserve_s:
                try:
                    cases[name] = make_case(kernel, platform)
                except Exception as error:  # the kernel's every cell reports it
                    cases[name] = error
            case = cases.get(name)
            if isinstance(case, Exception):
                cell = Cell(name, impl, "ERROR", note=f"inputs/reference: {case!r}"[:180])
            elif case is None:
                cell = Cell(name, impl)
            else:
                cell = run_cell(kernel, impl, case, platform, budget)
            cells.append(cell)
            print(
                f"[{len(cells):2d}/{total} {budget.elapsed:4.0f} s] {_progress(cell, peaks)}",
                flush=True,
            )
    return cells


# -- the table and the plot -----------------------------------------------------------------------


def _progress(cell: Cell, peaks: Peaks) -> str:
    line = f"{cell.kernel} x {cell.impl}: {cell.status}"
    if cell.ms:
        bound = peaks.bound(cell.intensity)
        line += (
            f" {cell.ms:.4g} ms · {cell.byte_rate / 1e9:,.4g} GB/s · "
            f"{_flops_text(cell.flop_rate)} · {cell.flop_rate / bound:.0%} of bound"
        )
    return line + (f" ({cell.note})" if cell.note else "")


def table(cells: list[Cell], peaks: Peaks) -> list[str]:
    rows = [
        "| kernel | impl | result | time ms | first call s | AI flop/B | GB/s | TFLOP/s | "
        "bound | attainable TFLOP/s | of bound | note |",
        "|---|---|---|--:|--:|--:|--:|--:|---|--:|--:|---|",
    ]
    order = {impl: i for i, impl in enumerate(IMPLS)}
    for cell in sorted(cells, key=lambda c: (c.kernel, order.get(c.impl, 99))):
        intensity = cell.intensity
        bound = peaks.bound(intensity) if intensity else None
        limit = "" if not intensity else "memory" if intensity < peaks.ridge else "compute"
        timed = cell.ms is not None
        values = [
            cell.kernel,
            cell.impl,
            cell.status,
            f"{cell.ms:.4g}" if timed else "",
            f"{cell.first_call_s:.2f}" if cell.first_call_s is not None else "",
            f"{intensity:.3g}" if intensity else "",
            f"{cell.byte_rate / 1e9:,.4g}" if timed else "",
            f"{cell.flop_rate / 1e12:.4g}" if timed else "",
            limit,
            f"{bound / 1e12:.4g}" if bound else "",
            f"{100 * cell.flop_rate / bound:.3g}%" if timed and bound else "",
            cell.note.replace("|", "\\|"),
        ]
        rows.append("| " + " | ".join(values) + " |")
    return rows


def summary(cells: list[Cell]) -> str:
    counts = {s: sum(c.status == s for c in cells) for s in ("ok", "FAIL", "ERROR", SKIPPED)}
    return ", ".join(f"{n} {s}" for s, n in counts.items() if n)


def markdown(cells: list[Cell], peaks: Peaks, platform: Platform, budget: Budget) -> str:
    dtype = str(platform.matmul[1]).removeprefix("torch.")
    sizes = "GPU sizes (`bench_args`)" if platform.gpu_sizes else "small sizes (`make_args`)"
    header = [
        f"# Suite kernels against the roofline on {platform.description}",
        "",
        f"{datetime.date.today()} · torch {torch.__version__} · {sizes} · "
        f"{budget.elapsed:.0f} s of a {budget.deadline - budget.start:.0f} s budget · "
        + summary(cells),
        "",
        f"Measured peaks: {peaks.describe}; ridge point {peaks.ridge:.3g} flop/byte.",
        "",
    ]
    notes = [
        "",
        "- time: median of `triton.testing.do_bench` (L2 flushed between runs) on the GPU, of "
        "a few perf_counter runs in the dry run; a call as a user makes it (the handle's "
        "argument binding, tens of microseconds of Python, included). first call: build, "
        "compile and one run, wall time.",
        "- AI (arithmetic intensity) = flops / bytes from `SuiteKernel.cost`: every input read "
        "once, every output written once (the compulsory traffic). attainable = min(peak "
        "compute, AI x peak bandwidth) with the measured peaks; of bound = achieved / "
        f"attainable. The compute peak is a {dtype} matmul's: fp32 kernels (TF32 dots in "
        "Triton on a GPU) and fp16 ones are measured against it alike.",
        "- torch: `SuiteKernel.torch_eager` where the entry has one (fp16 matmul and attention "
        "at fp16, rms_norm through `F.rms_norm`), else the reference, which computes the fp32 "
        "matmuls in full fp32 (TF32 off, torch's default).",
        "- result: outputs poisoned with NaN, compared with the reference once before timing "
        "(the entry's rtol; its atol times the largest expected magnitude). FAIL and ERROR "
        "cells are not timed.",
    ]
    return "\n".join(header + table(cells, peaks) + notes) + "\n"


MARKERS = "os^DvPX*p<h>d8"  # by increasing intensity: neighbours look different
COLORS = {
    "torch": "#4c4c4c",
    "triton": "#1f77b4",
    "ninetoothed": "#ff7f0e",
    "cuda": "#2ca02c",
    "tilelang": "#d62728",
}


def plot(cells: list[Cell], peaks: Peaks, path: Path, title: str) -> None:
    """Log-log roofline: the two roofs from the measured peaks, a marker per timed cell (colour:
    implementation; shape: kernel), the kernels named along the top at their intensity."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    unit, scale = ("TFLOP/s", 1e12) if peaks.flops >= 1e12 else ("GFLOP/s", 1e9)
    timed = [c for c in cells if c.ms]
    intensity = {c.kernel: c.intensity for c in cells if c.intensity}
    kernels = sorted(intensity, key=intensity.get)
    spread = list(intensity.values()) + [peaks.ridge]
    low, high = min(spread) / 3, max(spread) * 3
    figure, axes = plt.subplots(figsize=(13, 7.5), dpi=110)
    axes.set_xscale("log")
    axes.set_yscale("log")

    xs = [low, peaks.ridge, high]
    axes.plot(xs, [peaks.bound(x) / scale for x in xs], color="black", linewidth=1.6, zorder=1)
    axes.axvline(peaks.ridge, color="0.75", linestyle=":", zorder=0)
    marker = {name: MARKERS[i % len(MARKERS)] for i, name in enumerate(kernels)}
    for cell in timed:
        axes.scatter(
            cell.intensity,
            cell.flop_rate / scale,
            marker=marker[cell.kernel],
            s=70,
            color=COLORS.get(cell.impl, "purple"),
            edgecolors="black",
            linewidths=0.4,
            alpha=0.9,
            zorder=3,
        )

    rates = [c.flop_rate / scale for c in timed] or [peaks.bound(low) / scale]
    axes.set_xlim(low, high)
    axes.set_ylim(min(min(rates), peaks.bound(low) / scale) / 4, peaks.flops / scale * 3)
    axes.set_xlabel("arithmetic intensity (flop / byte of compulsory traffic)")
    axes.set_ylabel(f"achieved {unit}")
    axes.grid(True, which="major", color="0.9")

    # Kernel names along the top, one tick per group of kernels with nearly the same intensity.
    groups: list[list[str]] = []
    for name in kernels:
        if groups and intensity[name] < intensity[groups[-1][0]] * 1.15:
            groups[-1].append(name)
        else:
            groups.append([name])
    top = axes.secondary_xaxis("top")
    top.set_xticks([intensity[g[0]] for g in groups], ["\n".join(g) for g in groups])
    top.tick_params(axis="x", labelrotation=90, labelsize=8)
    top.minorticks_off()
    axes.set_title(title, fontsize=11)

    shown = [i for i in IMPLS if any(c.impl == i for c in timed)]
    implementations = [_key(marker="o", color=COLORS.get(i, "purple"), label=i) for i in shown]
    axes.add_artist(_legend(axes, implementations, "implementation", 1.0))
    _legend(axes, [_key(marker=marker[k], color="0.4", label=k) for k in kernels], "kernel", 0.68)
    figure.tight_layout()
    # The roofs' labels, above the roofs (no point is there): along the memory roof ending just
    # before the ridge, over the compute roof's end. After the layout: the angle on screen
    # depends on it.
    at = peaks.ridge / 1.4
    (x0, y0), (x1, y1) = axes.transData.transform(
        [(at, peaks.bound(at) / scale), (peaks.ridge, peaks.flops / scale)]
    )
    axes.annotate(
        f"memory roof {peaks.bandwidth / 1e9:,.0f} GB/s",
        (at, peaks.bound(at) / scale),
        xytext=(0, 6),
        textcoords="offset points",
        rotation=math.degrees(math.atan2(y1 - y0, x1 - x0)),
        rotation_mode="anchor",
        ha="right",
        fontsize=9,
    )
    axes.annotate(
        f"compute roof {peaks.flops / scale:,.4g} {unit}",
        (high, peaks.flops / scale),
        xytext=(-6, 6),
        textcoords="offset points",
        ha="right",
        fontsize=9,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, bbox_inches="tight")  # keep the legends outside the axes
    plt.close(figure)


def _key(**style):
    from matplotlib.lines import Line2D

    return Line2D([], [], linestyle="", **style)


def _legend(axes, handles: list, title: str, top: float):
    """A legend outside the plot, to its right, starting at height `top` (axes fraction)."""
    return axes.legend(
        handles=handles,
        title=title,
        loc="upper left",
        bbox_to_anchor=(1.01, top),
        fontsize=8,
        title_fontsize=9,
        frameon=False,
    )


# -- entry point -----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="the CPU dry run (small sizes)")
    parser.add_argument("--kernel", action="append", choices=sorted(SUITE), help="only these")
    parser.add_argument("--impl", action="append", choices=IMPLS, help="only these")
    parser.add_argument("--out", type=Path, help=f"results folder (default {RESULTS})")
    parser.add_argument("--budget-s", type=float, default=420.0, help="time budget (seconds)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.dry_run and not torch.cuda.is_available():
        print(
            "gpu-bench: no CUDA GPU here; run it on a GPU machine, or `python bench/gpu.py "
            "--dry-run` for the CPU dry run (the tests never need a GPU)"
        )
        return 2
    if not args.dry_run and os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        print(
            "gpu-bench: TRITON_INTERPRET is set; unset it for the GPU run (Triton would interpret)"
        )
        return 2
    if args.dry_run and "triton" not in sys.modules:
        os.environ.setdefault("TRITON_INTERPRET", "1")  # NineToothed's kernels in the interpreter
    budget = Budget(args.budget_s)
    platform = cpu_platform() if args.dry_run else gpu_platform()
    out = args.out or (DRY_RUN_RESULTS if args.dry_run else RESULTS)
    kernels = args.kernel or sorted(SUITE)
    impls = [i for i in IMPLS if i in (args.impl or IMPLS)]
    missing = [n for n in kernels if SUITE[n].cost is None or SUITE[n].bench_args is None]
    if missing:
        print(f"gpu-bench: {', '.join(missing)} lack bench_args or cost (compiler/suite)")
        return 2
    print(f"gpu-bench on {platform.description}: {len(kernels)} kernels x {impls}", flush=True)
    peaks = measure_peaks(platform)
    print(f"peaks: {peaks.describe}", flush=True)
    cells = run(kernels, impls, platform, budget, peaks)
    out.mkdir(parents=True, exist_ok=True)
    (out / TABLE).write_text(markdown(cells, peaks, platform, budget))
    plot(cells, peaks, out / PLOT, f"Suite kernels on {platform.description}")
    print(f"wrote {out / TABLE} and {out / PLOT} ({summary(cells)}; {budget.elapsed:.0f} s)")
    return 1 if any(c.status in ("FAIL", "ERROR") for c in cells) else 0


def _flops_text(rate: float) -> str:
    return f"{rate / 1e12:,.4g} TFLOP/s" if rate >= 1e12 else f"{rate / 1e9:,.4g} GFLOP/s"


def _to(value, device: str):
    return value.to(device) if isinstance(value, torch.Tensor) else value


def _poisoned_like(value):
    return _poison(torch.empty_like(value)) if isinstance(value, torch.Tensor) else value


def _poison(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.fill_(float("nan") if tensor.is_floating_point() else INT_POISON)


if __name__ == "__main__":
    sys.exit(main())
