"""The GPU benchmark script (`make gpu-bench`) through its CPU dry run, and the suite's bench data
(GPU sizes on the "meta" device: shapes only, nothing allocated)."""

import dataclasses
import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest
import torch
import triton

from compiler.suite import SUITE
from compiler.suite.checking import build

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ("vector_add", "matmul", "softmax")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

needs_interpreter = pytest.mark.skipif(
    not triton.knobs.runtime.interpret,
    reason="NineToothed's kernels need TRITON_INTERPRET=1 before triton is imported",
)


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("gpu_bench", ROOT / "bench" / "gpu.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _rows(table: str) -> dict[tuple[str, str], list[str]]:
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0] in SUITE:
            rows[cells[0], cells[1]] = cells
    return rows


def _valid_png(path: Path) -> bool:
    data = path.read_bytes()
    return data.startswith(PNG_SIGNATURE) and data[-8:-4] == b"IEND" and len(data) > 10_000


@needs_interpreter
def test_dry_run_checks_and_times_every_implementation(bench, tmp_path, capsys):
    argv = ["--dry-run", "--out", str(tmp_path)] + [a for k in KERNELS for a in ("--kernel", k)]
    assert bench.main(argv) == 0
    output = capsys.readouterr().out
    assert "peaks:" in output and f"[15/{len(KERNELS) * 5}" in output and "wrote" in output

    table = (tmp_path / bench.TABLE).read_text()
    assert "Measured peaks:" in table and "ridge point" in table
    rows = _rows(table)
    assert set(rows) == {(k, i) for k in KERNELS for i in bench.IMPLS}
    for (kernel, impl), cells in rows.items():
        _, _, status, ms, first, intensity, gbs, tflops, bound, attainable, fraction, _ = cells
        assert status == "ok", (kernel, impl, cells)
        for number in (ms, intensity, gbs, tflops, attainable, fraction.rstrip("%")):
            assert float(number.replace(",", "")) > 0, cells
        assert float(first) >= 0 and bound in ("memory", "compute")
    assert rows["matmul", "torch"][5] == f"{2 * 32**3 / (3 * 32 * 32 * 4):.3g}"
    assert _valid_png(tmp_path / bench.PLOT)


@needs_interpreter
def test_a_spent_budget_skips_the_cells_and_still_writes(bench, tmp_path, capsys):
    argv = ["--dry-run", "--kernel", "vector_add", "--kernel", "softmax", "--impl", "torch"]
    argv += ["--impl", "triton", "--budget-s", "0", "--out", str(tmp_path)]
    assert bench.main(argv) == 0
    assert "skipped (time budget)" in capsys.readouterr().out
    rows = _rows((tmp_path / bench.TABLE).read_text())
    assert set(rows) == {(k, i) for k in ("vector_add", "softmax") for i in ("torch", "triton")}
    assert all(cells[2] == bench.SKIPPED and not cells[3] for cells in rows.values())
    assert _valid_png(tmp_path / bench.PLOT)


def test_a_cell_that_runs_out_of_time_mid_way_is_checked_not_timed(bench):
    kernel = SUITE["vector_add"]
    platform = dataclasses.replace(bench.cpu_platform(), timing_calls=10**9)
    case = bench.make_case(kernel, platform)
    cell = bench.run_cell(kernel, "torch", case, platform, bench.Budget(60))
    assert (cell.status, cell.ms) == ("ok", None) and "not timed" in cell.note


def test_a_wrong_result_fails_and_is_not_timed(bench):
    kernel = dataclasses.replace(SUITE["vector_add"], torch_eager=lambda args: [args[0] - args[1]])
    platform = bench.cpu_platform()
    case = bench.make_case(kernel, platform)
    cell = bench.run_cell(kernel, "torch", case, platform, bench.Budget(60))
    assert cell.status == "FAIL" and cell.ms is None and "max |error|" in cell.note


def test_without_a_gpu_it_says_where_to_run(bench, monkeypatch, capsys):
    monkeypatch.setattr(bench.torch.cuda, "is_available", lambda: False)
    assert bench.main([]) == 2
    output = capsys.readouterr().out
    assert "no CUDA GPU here" in output and "--dry-run" in output


def test_gpu_block_sizes_follow_where_the_target_keeps_tiles(bench):
    gpu = dataclasses.replace(bench.cpu_platform(), name="cuda", gpu_sizes=True)
    matmul = SUITE["matmul"]
    for impl in ("triton", "ninetoothed"):
        assert bench.settings(matmul, impl, gpu)[0] == matmul.bench_arrangement_kwargs
    # CUDA C++ caps tiles at 32 (__shared__ arrays: 48 KB per block), TileLang at 128.
    assert bench.settings(matmul, "cuda", gpu)[0] == matmul.bench_array_arrangement_kwargs
    assert bench.settings(matmul, "tilelang", gpu)[0] == matmul.bench_arrangement_kwargs
    pool = SUITE["max_pool2d"]  # BLOCK_SIZE 256 at bench sizes
    assert bench.settings(pool, "tilelang", gpu)[0] == pool.bench_array_arrangement_kwargs
    assert bench.settings(pool, "triton", gpu)[0] == pool.bench_arrangement_kwargs
    softmax = SUITE["softmax"]
    assert bench.settings(softmax, "cuda", gpu) == ({}, {"BLOCK_SIZE": 2048})
    small = bench.cpu_platform()
    assert bench.settings(softmax, "cuda", small) == ({}, {"BLOCK_SIZE": 64})


def test_the_comparison_scales_atol_with_the_values(bench):
    kernel = SUITE["matmul"]  # rtol = atol = 1e-2
    want = torch.tensor([1000.0, 0.0])
    assert bench.compare([torch.tensor([1000.0, 5.0])], [want], kernel)[0]
    assert not bench.compare([torch.tensor([1000.0, 20.0])], [want], kernel)[0]
    assert not bench.compare([torch.tensor([1000.0, math.nan])], [want], kernel)[0]


@pytest.mark.parametrize("name", sorted(SUITE))
def test_every_entry_has_gpu_sizes_and_a_cost(name):
    kernel = SUITE[name]
    assert kernel.bench_args is not None and kernel.cost is not None
    args = kernel.bench_args(0, device="meta")
    flops, moved = kernel.cost(args)
    assert flops > 0 and moved > 0
    outputs = [args[i] for i in kernel.outputs]
    assert moved > sum(a.numel() * a.element_size() for a in outputs)  # and the inputs
    # The reference and torch eager agree with the outputs' shapes and dtypes at GPU sizes.
    for compute in (kernel.reference, kernel.torch_eager or kernel.reference):
        for index, value in zip(kernel.outputs, compute(args), strict=True):
            assert (value.shape, value.dtype) == (args[index].shape, args[index].dtype)


def test_costs_on_small_arguments():
    a, b, c = args = SUITE["matmul"].make_args(0, ragged=True)  # (37, 45) @ (45, 29)
    assert SUITE["matmul"].cost(args) == (2 * 37 * 29 * 45, 4 * (37 * 45 + 45 * 29 + 37 * 29))
    args = SUITE["vector_add"].make_args(0, ragged=False)
    assert SUITE["vector_add"].cost(args) == (1024, 3 * 4 * 1024)
    full = SUITE["flash_attention"].cost(SUITE["flash_attention"].make_args(0))
    causal = SUITE["flash_attention_causal"].cost(SUITE["flash_attention_causal"].make_args(0))
    assert full[1] == causal[1] and full[0] / 2 < causal[0] < full[0]
    gpu = SUITE["matmul_fp16"].bench_args(0, device="meta")
    assert SUITE["matmul_fp16"].cost(gpu) == (2 * 4096**3, 3 * 2 * 4096**2)


@pytest.mark.parametrize("backend", ["triton", "cuda", "tilelang"])
def test_gpu_forms_lower_at_gpu_sizes(bench, backend):
    """Our compiler accepts every entry's GPU sizes and block sizes (constexpr bounds, tile caps)
    for each backend's CUDA form; only the native compile and the launch need a GPU."""
    gpu = dataclasses.replace(bench.cpu_platform(), name="cuda", gpu_sizes=True)
    for name, kernel in sorted(SUITE.items()):
        arrangement, call = bench.settings(kernel, backend, gpu)
        handle = build(dataclasses.replace(kernel, arrangement_kwargs=arrangement), backend, "cuda")
        artifact = handle.compile(*kernel.bench_args(0, device="meta"), **call)
        assert re.search(name, artifact.source), name
