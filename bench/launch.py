"""Host time per kernel call (`make bench-launch`): what a launch costs beside the kernel itself.

For an elementwise, a reduction and a matmul suite kernel at the suite's small sizes, in one
process, each timed as the best of `--repeat` rounds of `--calls` steady-state calls (after a
first call that compiles and plans); the host parts, torch and NineToothed are timed in the same
rounds, one after another, so that a change in the machine's speed falls on all of them alike:

- ours, per backend, on the CPU (and on a CUDA GPU when there is one): the whole call, and the
  host part alone, with the backend's final native call stubbed out (the launch plan's entry);
- torch eager on the same tensors (the suite kernel's torch computation);
- NineToothed 0.26 on the CPU: its own launch function (arguments, sizes, strides, grid) with the
  final Triton call stubbed out.

Writes `bench/results/launch.md`. Targets: our host part within 10 us per call on every backend,
and never above NineToothed's own path; a row that misses says why.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import ninetoothed
import torch

import compiler.dsl
from compiler.backends import TARGETS
from compiler.runtime import LaunchError
from compiler.suite import SUITE, SuiteKernel, load_program
from compiler.suite.loader import bound_arrangement
from compiler.suite.reference_ninetoothed import cpu_driver

RESULTS = Path(__file__).parent / "results" / "launch.md"
KERNELS = ("vector_add", "softmax", "matmul")
HOST_TARGET_US = 10.0
# Why NineToothed's stubbed path is the shorter: it stops where Triton's launcher begins.
BEYOND_NINETOOTHED = (
    "NineToothed's path stops where Triton's launcher begins, which then binds the arguments and "
    "computes its own specialization key (dtypes, each pointer's alignment, values equal to 1) "
    "on every call; ours does that work before its stub point: each buffer's dtype, device, "
    "sizes, strides and alignment read and compared with the last planned signature (five reads "
    "of each tensor, where NineToothed's own path reads a 1-D tensor's size and stride), and the "
    "overlap check NineToothed does not make"
)
# Why a backend's whole call costs more than its host part: what its own runtime does per call.
FLOORS = {
    "tvm": "each call is a request to the TVM worker process (apache-tvm 0.27 cannot share this "
    "interpreter with TileLang's TVM): a pipe round trip, and each tensor's span copied into and "
    "out of a shared-memory arena",
    "tilelang": "TileLang's own call (its Cython adapter) prints each symbolic extent of the "
    "kernel's signature to a string on every call to find its value",
    "triton": "on the CPU the kernel itself runs in Triton's interpreter (milliseconds); on a GPU "
    "Triton's launcher binds and specializes the arguments on every call",
    "cuda": "on the CPU the kernel itself runs in the host shim, one thread per block, at once",
}


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per round (default 200)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; the best counts (5)")
    parser.add_argument("--kernel", action="append", choices=sorted(SUITE), help="only these")
    parser.add_argument("--backend", action="append", choices=sorted(TARGETS), help="only these")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the table")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.repeat < 1:
        parser.error("--calls and --repeat must be at least 1")
    return args


def per_call(call: Callable[[], object], calls: int, repeat: int) -> float:
    """Microseconds per call: the best round."""
    return interleaved({None: call}, calls, repeat)[None]


def interleaved(calls: dict, each: int, repeat: int) -> dict:
    """Microseconds per call of each of `calls` (key -> function): the best of `repeat` rounds of
    `each` calls, every round timing all of them in turn, so that a change in the machine's
    speed falls on all alike."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(repeat):
        for key, call in calls.items():
            start = time.perf_counter()
            for _ in range(each):
                call()
            best[key] = min(best[key], time.perf_counter() - start)
    return {key: seconds / each * 1e6 for key, seconds in best.items()}


def on_device(args: list, device: str) -> list:
    return [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]


# -- the sides ------------------------------------------------------------------------------------


def ours(kernel: SuiteKernel, backend: str, device: str, args: list) -> tuple:
    """(the whole call, the call with its final native call stubbed) of our `backend` on
    `device`, each planned by a first call."""
    calls = []
    for _ in range(2):
        module = load_program(kernel.path, compiler.dsl)
        arrangement = bound_arrangement(module.arrangement, kernel.arrangement_kwargs)
        handle = compiler.dsl.make(
            arrangement, module.application, module.tensors, backend=backend, device=device
        )
        handle(*args, **kernel.call_kwargs)  # compiles, builds and plans
        calls.append((handle, lambda h=handle: h(*args, **kernel.call_kwargs)))
    stub_entries(calls[1][0])
    return calls[0][1], calls[1][1]


def stub_entries(handle) -> None:
    """The final native call of every plan `handle` has made launches nothing from now on."""
    for _, plan, _ in handle._plans.values():
        plan.run = lambda values: None


def ninetoothed_host(kernel: SuiteKernel, args: list) -> Callable[[], object]:
    """A call of NineToothed's generated launch function, Triton's call stubbed."""
    module = load_program(kernel.path, ninetoothed)
    arrangement = bound_arrangement(module.arrangement, kernel.arrangement_kwargs)
    with cpu_driver():
        handle = ninetoothed.make(arrangement, module.application, module.tensors)
    launch = handle._launch
    for name, value in list(launch.__globals__.items()):
        if value is handle._kernel:
            launch.__globals__[name] = _StubbedTriton()
    return lambda: handle(*args, **kernel.call_kwargs)


class _StubbedTriton:
    """`kernel[grid](*args, **options)` that launches nothing."""

    def __getitem__(self, grid):
        return lambda *args, **options: None


def torch_eager(kernel: SuiteKernel, args: list) -> Callable[[], object]:
    compute = kernel.torch_eager or kernel.reference
    return lambda: compute(args)


# -- the table ------------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> list[dict]:
    """Per kernel: the whole calls one after another, then the host parts, torch and NineToothed
    interleaved (`interleaved`)."""
    timing = (args.calls, args.repeat)
    devices = ["cpu", *(["cuda"] if torch.cuda.is_available() else [])]
    rows = []
    for name in args.kernel or KERNELS:
        kernel = SUITE[name]
        inputs = kernel.make_args(0, ragged=False)
        row: dict = {"kernel": name}
        hosts = {
            "torch": torch_eager(kernel, inputs),
            "ninetoothed": ninetoothed_host(kernel, inputs),
        }
        wholes = {}
        for device in devices:
            for backend in args.backend or sorted(TARGETS):
                on = on_device(inputs, device)
                try:
                    whole, hosts[backend, device] = ours(kernel, backend, device, on)
                except LaunchError as error:  # Triton's CPU form is its interpreter: no GPU then
                    row[backend, device] = str(error)
                    continue
                wholes[backend, device] = per_call(whole, *timing)
        for key, host in interleaved(hosts, *timing).items():
            row[key] = (wholes[key], host) if key in wholes else host
        for key in (k for k in row if isinstance(k, tuple)):
            print(f"  {name:12} {key[0]:9} {key[1]:5} {_cell(row[key])}")
        sys.stdout.flush()
        rows.append(row)
    return rows


def _cell(pair: tuple[float, float] | str) -> str:
    if isinstance(pair, str):
        return "cannot run here"
    whole, host = pair
    return f"{host:.1f} / {whole:.1f}"


def render(rows: list[dict], args: argparse.Namespace) -> str:
    ours_columns = [key for key in rows[0] if isinstance(key, tuple)]
    header = ["kernel", "torch eager", "NineToothed host", *(f"{b} ({d})" for b, d in ours_columns)]
    lines = [
        "# Host time per kernel call",
        "",
        f"Written by `make bench-launch` (`bench/launch.py`) on {datetime.date.today()}, "
        f"{platform.machine()}, Python {platform.python_version()}, torch {torch.__version__}, "
        f"NineToothed {importlib.metadata.version('ninetoothed')}"
        f"; best of {args.repeat} rounds of {args.calls} calls, microseconds per call.",
        "",
        "Ours: `host / whole`, the call with the backend's final native call stubbed out (the "
        "host part: signature lookup, overlap check, argument packing) and the whole call (on "
        "the CPU, the kernel itself runs in Triton's interpreter, the C shim, TileLang's C build "
        "or the TVM worker). NineToothed host: its generated launch function with Triton's call "
        f"stubbed. Target: host <= {HOST_TARGET_US:g} us and <= NineToothed host.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for row in rows:
        cells = [row["kernel"], f"{row['torch']:.1f}", f"{row['ninetoothed']:.1f}"]
        cells += [_cell(row[key]) for key in ours_columns]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Against the targets", ""]
    for key in ours_columns:
        measured = [row for row in rows if not isinstance(row[key], str)]
        refused = [f"{row['kernel']}: {row[key]}" for row in rows if isinstance(row[key], str)]
        if measured:
            lines.append(_verdict(key, [row[key][1] for row in measured], measured))
        lines += [f"- {key[0]} ({key[1]}) cannot run {reason}" for reason in refused]
    lines += ["", "Where ours is above NineToothed's host path: " + BEYOND_NINETOOTHED + "."]
    lines += ["", "## Beyond the host part", ""]
    lines += [f"- {backend}: {reason}." for backend, reason in sorted(FLOORS.items())]
    return "\n".join(lines) + "\n"


def _verdict(key: tuple[str, str], hosts: list[float], rows: list[dict]) -> str:
    backend, device = key
    worst = max(hosts)
    within = "met" if worst <= HOST_TARGET_US else "not met: not yet investigated"
    above = [
        row["kernel"] for row, host in zip(rows, hosts, strict=True) if host > row["ninetoothed"]
    ]
    versus = f"not met on {', '.join(above)} (see below)" if above else "met"
    return (
        f"- {backend} ({device}): host at most {worst:.1f} us; within {HOST_TARGET_US:g} us: "
        f"{within}; at most NineToothed's host path: {versus}."
    )


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    print(f"Host time per call, best of {args.repeat} x {args.calls} calls (host / whole, us):")
    rows = measure(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(rows, args))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
