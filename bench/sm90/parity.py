"""Our GPU forms against NineToothed 0.26's Triton, the kernel users compare with: per kernel and
metric, ours / NineToothed's and their ratio, the metrics on which ours is worse, and why
(`reasons.py`; a worse metric with no recorded reason shows as unexplained)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .ptxas import ptxas_usage
from .reasons import TEXTS, reason
from .sass import Sass, sass_of
from .triton_build import TritonBuild

# Tensor-core instructions by generation: Hopper's warpgroup ones (wgmma) over the warp ones.
CORE_RANK = {"HMMA": 1, "IMMA": 1, "BMMA": 1, "HGMMA": 2, "IGMMA": 2, "QGMMA": 2}
LEGEND = (
    "Per kernel, each of our GPU forms as the benchmark launches it (bench/gpu.py: its block "
    "sizes per backend, its tensors `bench_args` as shapes) beside NineToothed 0.26's Triton for "
    "the same program at its block sizes, launched as its handle launches it (8 warps; "
    "`num_stages` = an H100's 227 KiB of shared memory // 32 KiB = 7). Triton {triton} compiles "
    "both Triton forms for sm_90 through its own launch path, with a driver that answers for an "
    "H100 (so the arguments are specialized as on the GPU), and its bundled ptxas; our CUDA C++ "
    "and TileLang forms are the wide forms above, by nvcc. The second Triton row launches our "
    "source as NineToothed launches its own: what differs there is the code alone. Each cell is "
    "ours / NineToothed's, then (ours / theirs), or (=) where they are equal. Registers are per "
    "thread, then per block (x threads); stack + spilled is ptxas' stack frame plus spill stores "
    "and loads; shared memory is static plus dynamic; SASS instructions are the cubin's "
    "(`cuobjdump -sass`) less the NOPs that pad it; global loads (`LDG`, and `LDGSTS`: cp.async "
    "into shared memory) and stores (`STG`) are counts x bits in the SASS, then the mean bits per"
    " instruction, whose ratio the cell gives (above 1: ours wider); tensor cores are the SASS "
    "HMMA (a warp's MMA) and HGMMA (Hopper's wgmma). Ours is worse where it has more registers, "
    "stack, shared memory or instructions, narrower accesses on the mean, or no tensor cores (or "
    "a warp's MMA where NineToothed has wgmma); why names the reason found by reading both, "
    "listed below the table (bench/sm90/reasons.py)."
)

# The row of our Triton source launched as NineToothed launches its own (num_warps, num_stages).
SAME_LAUNCH = "triton, NineToothed's launch"


@dataclass(frozen=True)
class Build:
    """One sm_90 build of a kernel, as the comparison reads it."""

    registers: int
    shared_bytes: int  # static and dynamic
    stack_bytes: int
    spilled_bytes: int
    sass: Sass
    num_warps: int
    launch: str  # "8 warps, 7 stages"


@dataclass(frozen=True)
class Row:
    kernel: str
    form: str  # our backend: triton, cuda, tilelang
    ours: Build
    theirs: Build  # NineToothed's Triton at its GPU block sizes


@dataclass(frozen=True)
class Metric:
    name: str
    value: Callable[[Build], float]
    lower_is_better: bool
    cell: Callable[[Build, Build], str]


def _ratio(ours: float, theirs: float) -> str:
    if ours == theirs:
        return "(=)"
    return f"({ours / theirs:.2f})" if theirs else "(-)"


def _plain(value: Callable[[Build], int], unit: str = "") -> Callable[[Build, Build], str]:
    def cell(ours: Build, theirs: Build) -> str:
        a, b = value(ours), value(theirs)
        return f"{a} / {b}{unit} {_ratio(a, b)}"

    return cell


def _registers(ours: Build, theirs: Build) -> str:
    per_block = [b.registers * 32 * b.num_warps for b in (ours, theirs)]
    return _plain(lambda b: b.registers)(ours, theirs) + " · per block {} / {}".format(*per_block)


def _widths(field: str) -> Callable[[Build, Build], str]:
    def cell(ours: Build, theirs: Build) -> str:
        a, b = (getattr(side.sass, field) for side in (ours, theirs))
        mean = Sass.mean_bits(a), Sass.mean_bits(b)
        return f"{_counts(a)} / {_counts(b)} · {mean[0]:.0f} / {mean[1]:.0f} bits {_ratio(*mean)}"

    return cell


def _counts(accesses: dict[int, int]) -> str:
    return ", ".join(f"{n}×{bits}" for bits, n in sorted(accesses.items(), reverse=True)) or "0"


def core_rank(build: Build) -> int:
    return max((CORE_RANK[op.split(".")[0]] for op in build.sass.tensor_core), default=0)


def _cores(ours: Build, theirs: Build) -> str:
    def listed(build: Build) -> str:
        found = sorted(build.sass.tensor_core.items())
        return ", ".join(f"{n} × `{op}`" for op, n in found) or "none"

    return f"{listed(ours)} / {listed(theirs)}"


def _local(build: Build) -> int:
    return build.stack_bytes + build.spilled_bytes


METRICS = (
    Metric("registers", lambda b: b.registers, True, _registers),
    Metric("stack + spilled", _local, True, _plain(_local, " B")),
    Metric("shared memory", lambda b: b.shared_bytes, True, _plain(lambda b: b.shared_bytes, " B")),
    Metric(
        "SASS instructions",
        lambda b: b.sass.instructions,
        True,
        _plain(lambda b: b.sass.instructions),
    ),
    Metric("global load width", lambda b: Sass.mean_bits(b.sass.loads), False, _widths("loads")),
    Metric("global store width", lambda b: Sass.mean_bits(b.sass.stores), False, _widths("stores")),
    Metric("tensor cores", core_rank, False, _cores),
)


def from_triton(built: TritonBuild) -> Build:
    registers, shared, stack, spilled = ptxas_usage(built.ptxas_log, built.name)
    return Build(
        registers,
        shared + built.shared_bytes,
        stack,
        spilled,
        sass_of(built.cubin, built.name),
        built.num_warps,
        f"{built.num_warps} warps, {built.num_stages} stages",
    )


def from_form(form) -> Build:
    """From one of `bench/gpu_static.py`'s nvcc forms (its `Form`)."""
    launch = f"{form.num_warps} warps"
    return Build(
        form.registers,
        form.shared_bytes,
        form.stack_bytes,
        form.spilled_bytes,
        form.sass,
        form.num_warps,
        launch,
    )


def worse(row: Row) -> list[str]:
    """The metrics on which our build is worse than NineToothed's."""
    found = []
    for metric in METRICS:
        ours, theirs = metric.value(row.ours), metric.value(row.theirs)
        if (ours > theirs) if metric.lower_is_better else (ours < theirs):
            found.append(metric.name)
    return found


def why(row: Row) -> str:
    """The reason of each worse metric, metrics of one reason together."""
    by_reason: dict[str, list[str]] = {}
    for metric in worse(row):
        key = reason(row.kernel, row.form, metric)
        by_reason.setdefault(f"`{key}`" if key else "**unexplained**", []).append(metric)
    return "; ".join(f"{', '.join(metrics)}: {key}" for key, metrics in by_reason.items()) or "-"


def reasons(rows: list[Row]) -> list[str]:
    """The texts of the reasons the rows give, in order, one list item each."""
    keys = [reason(row.kernel, row.form, metric) for row in rows for metric in worse(row)]
    return [f"- `{key}`: {TEXTS[key]}" for key in dict.fromkeys(k for k in keys if k)]


def unexplained(rows: list[Row]) -> list[str]:
    return [
        f"{row.kernel} {row.form} ({metric})"
        for row in rows
        for metric in worse(row)
        if not reason(row.kernel, row.form, metric)
    ]


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| kernel | ours | launch | "
        + " | ".join(m.name for m in METRICS)
        + " | ours worse on | why |",
        "|---|---|---|" + "---:|" * (len(METRICS) - 1) + "---|---|---|",
    ]
    for row in rows:
        launch = f"{row.ours.launch} / {row.theirs.launch}"
        cells = [metric.cell(row.ours, row.theirs) for metric in METRICS]
        found = ", ".join(worse(row)) or "none"
        lines.append(
            f"| {row.kernel} | {row.form} | {launch} | "
            + " | ".join(cells)
            + f" | {found} | {why(row)} |"
        )
    return lines
