"""The static GPU report (`make gpu-static`): ptxas's and the SASS's numbers read right, TileLang's
dynamic shared memory counted, the comparison with NineToothed's Triton judged right, and the
script itself on one kernel through nvcc and Triton."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


@pytest.fixture(autouse=True)
def _bench_helpers(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # bench/sm90/, as when the script runs


def _script():
    spec = importlib.util.spec_from_file_location("gpu_static", BENCH / "gpu_static.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


PTXAS_LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'other_kernel' for 'sm_90'
ptxas info    : Used 8 registers, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_Z6matmulPfS_' for 'sm_90'
ptxas info    : Function properties for _Z6matmulPfS_
    24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, 20480 bytes smem, 432 bytes cmem[0]
"""


def test_ptxas_usage_is_read_for_the_named_entry():
    from sm90.ptxas import ptxas_usage

    assert ptxas_usage(PTXAS_LOG, "matmul") == (255, 20480, 24, 28)
    assert ptxas_usage(PTXAS_LOG, "other_kernel") == (8, 0, 0, 0)
    with pytest.raises(RuntimeError, match="nothing for an entry named like 'softmax'"):
        ptxas_usage(PTXAS_LOG, "softmax")


def test_tilelang_dynamic_shared_memory_is_counted_from_the_program():
    program = (
        "a = T.alloc_shared((256,), T.float16)\n"
        "b = T.alloc_shared((32, 64), T.float32)\n"
        "c = T.alloc_var(T.int32, init=0)\n"
    )
    assert _script().dynamic_shared_bytes(program) == 256 * 2 + 32 * 64 * 4


def test_async_copies_are_read_with_their_width():
    ptx = (
        "\tcp.async.ca.shared.global [%r298], [%rd127], 8, %r19;\n"
        "\tcp.async.cg.shared.global.L2::128B [%r1+16], [%rd2], 16;\n"
        "\tcp.async.commit_group;\n\tcp.async.wait_group 1;\n"
    )
    assert _script().ASYNC_COPY.findall(ptx) == ["8", "16"]


SASS = """
	code for sm_90a
		Function : other
	.headerflags	@"EF_CUDA_SM90"
        /*0000*/                   STG.E [R2.64], R5 ;                 /* 0x0000000502007986 */
		Function : _Z6kernelPf
	.headerflags	@"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;              /* 0x00000a00ff017b82 */
                                                                       /* 0x000fe20000000800 */
        /*0010*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;    /* 0x0000000402048981 */
        /*0020*/                   LDG.E.U16.CONSTANT R8, desc[UR4][R6.64] ;
        /*0030*/               @P1 LDGSTS.E.BYPASS.LTC128B.128 [R9], desc[UR4][R10.64] ;
        /*0040*/                   LDGSTS.E [R9+0x10], desc[UR4][R12.64] ;
        /*0050*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], RZ, !UPT ;
        /*0060*/                   HMMA.16816.F32 R0, R4, R8, R0 ;
        /*0070*/                   STG.E.64 desc[UR4][R2.64], R4 ;
        /*0080*/                   EXIT ;
        /*0090*/                   BRA 0x90;
        /*00a0*/                   NOP;
        /*00b0*/                   NOP;
"""


def test_sass_is_read_for_the_named_function():
    from sm90.sass import function_text, read

    sass = read(function_text(SASS, "kernel"))
    assert sass.instructions == 10  # the two padding NOPs left out
    assert sass.loads == {128: 2, 16: 1, 32: 1}  # LTC128B is a cache hint, not a width
    assert sass.stores == {64: 1}
    assert sass.tensor_core == {"HGMMA.64x128x16.F32": 1, "HMMA.16816.F32": 1}
    assert sass.mean_bits(sass.loads) == (128 * 2 + 16 + 32) / 4
    assert read(function_text(SASS, "other")).stores == {32: 1}
    with pytest.raises(RuntimeError, match="no function named like 'softmax'"):
        function_text(SASS, "softmax")


def _build(registers=32, stack=0, shared=0, instructions=100, loads=None, cores=None, warps=4):
    from sm90.parity import Build
    from sm90.sass import Sass

    sass = Sass(instructions, loads or {128: 2}, {128: 1}, cores or {})
    return Build(registers, shared, stack, 0, sass, warps, f"{warps} warps")


def test_parity_finds_the_metrics_on_which_ours_is_worse(monkeypatch):
    from sm90 import parity, reasons

    theirs = _build(cores={"HGMMA.64x64x16.F32": 8}, warps=8)
    same = parity.Row("k", "other", _build(cores={"HGMMA.64x64x16.F32": 4}, warps=8), theirs)
    assert parity.worse(same) == []  # fewer wgmma of one shape is not worse
    ours = _build(40, 8, 16, 120, {128: 1, 32: 1}, {"HMMA.16816.F32": 8})
    row = parity.Row("k", "other", ours, theirs)
    assert parity.worse(row) == [
        "registers",
        "stack + spilled",
        "shared memory",
        "SASS instructions",
        "global load width",
        "tensor cores",
    ]
    assert parity.unexplained([row])[0] == "k other (registers)"
    (line,) = parity.table([row])[2:]
    assert "| 40 / 32 (1.25) · per block 5120 / 8192 |" in line
    assert "| 1×128, 1×32 / 2×128 · 80 / 128 bits (0.62) |" in line
    assert line.endswith("tensor cores: **unexplained** |")
    for metric in ("registers", "shared memory"):
        monkeypatch.setitem(reasons.REASONS, ("k", "other", metric), "x")
    monkeypatch.setitem(reasons.TEXTS, "x", "a stated reason")
    assert parity.why(row).startswith("registers, shared memory: `x`; stack + spilled")
    assert "k other (registers)" not in parity.unexplained([row])
    assert parity.reasons([row]) == ["- `x`: a stated reason"]


def test_every_stated_reason_names_a_kernel_form_metric_and_text():
    from sm90 import parity, reasons

    from compiler.suite import SUITE

    forms = {"triton", parity.SAME_LAUNCH, "cuda", "tilelang"}
    metrics = {metric.name for metric in parity.METRICS}
    for (kernel, form, metric), key in reasons.REASONS.items():
        assert kernel is None or kernel in SUITE, kernel
        assert form in forms and metric in metrics, (form, metric)
        assert key in reasons.TEXTS, key


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_report_for_one_kernel(tmp_path):
    out = tmp_path / "gpu_static.md"
    # A process of its own: Triton must compile there, and the tests run with TRITON_INTERPRET=1.
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    command = [sys.executable, "bench/gpu_static.py", "--kernel", "vector_add", "--out", str(out)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    text = out.read_text()
    assert "| vector_add | cuda | " in text and "| vector_add | tilelang | " in text
    assert "| 0 bytes spilled or on the stack in matmul and attention | not checked" in text
    assert "| elementwise tiles in registers: no shared memory, no stack in vector_add" in text
    assert "fused_elementwise | met |" in text
    assert "on arrays of its shape | not checked" in text  # no 2-D tiles in vector_add
    assert "each thread rescaling its own elements" in text  # attention's row, not checked here
    # at GPU block sizes each thread's lanes of its contiguous tensors go as vectors
    assert "vector_add, fused_elementwise, softmax, rms_norm and the matmul" in text
    wide = text.split("At the GPU block sizes the benchmark")[1].split("## Against")[0]
    (row,) = [line for line in wide.splitlines() if line.startswith("| vector_add | cuda |")]
    assert int(_cells(row)[8]) == 3  # two vector loads and one vector store
    # both backends at their own GPU block sizes, TileLang's with nothing on the stack
    (row,) = [line for line in wide.splitlines() if line.startswith("| vector_add | tilelang |")]
    assert _cells(row)[4] == "0 B"
    assert "| TileLang at GPU block sizes: every kernel builds with no stack" in text

    # Against NineToothed's Triton: a row per form of ours, each metric with both sides' numbers.
    section = text.split("## Against NineToothed's Triton")[1].split("## Targets")[0]
    header, _, *rows = [line for line in section.splitlines() if line.startswith("|")]
    columns = _cells(header)
    assert columns[:3] == ["kernel", "ours", "launch"]
    assert columns[-2:] == ["ours worse on", "why"]
    assert "registers" in columns and "tensor cores" in columns
    forms = [_cells(row)[1] for row in rows]
    assert forms == ["triton", "triton, NineToothed's launch", "cuda", "tilelang"]
    for row in rows:
        cells = dict(zip(columns, _cells(row), strict=True))
        assert re.fullmatch(r"\d+ warps(, \d+ stages)? / 8 warps, 7 stages", cells["launch"])
        for metric in ("registers", "stack + spilled", "shared memory", "SASS instructions"):
            assert re.match(r"\d+ / \d+( B)? \((=|\d+\.\d\d)\)", cells[metric]), (metric, row)
        assert re.search(r"· \d+ / \d+ bits", cells["global load width"]), row
        if cells["ours worse on"] == "none":
            assert cells["why"] == "-"
    triton = dict(zip(columns, _cells(rows[0]), strict=True))
    assert int(triton["SASS instructions"].split(" / ")[1].split()[0]) > 0  # NineToothed's own
    assert "| ours no worse than NineToothed's Triton on any metric, or the reason stated" in text
    assert "Why ours is worse where it is:" in section
