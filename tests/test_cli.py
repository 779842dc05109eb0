"""`ntc` as a user runs it: run, compile (ssa, trace, source), passes; errors name the fix."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "compiler" / "suite" / "programs"
HEAD_DIMS = [f"-D{name}_size_3=16" for name in ("q", "k", "v", "o")]


def ntc(*args: str, seed: str = "0") -> subprocess.CompletedProcess:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONHASHSEED": seed}
    command = [sys.executable, "-m", "compiler", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_run_executes_an_unmodified_ninetoothed_program():
    result = ntc("run", "examples/add.py")
    assert result.returncode == 0, result.stderr
    assert "max |error| vs torch: 0.0" in result.stdout


def test_run_help_says_what_a_program_holds_and_its_example_runs(tmp_path):
    """`ntc run --help` shows a whole program; that program runs, and a wrong one exits non-zero."""
    from compiler.cli.commands import RUN_DESCRIPTION

    help_text = ntc("run", "--help").stdout
    assert "imports ninetoothed" in help_text and "kernel(x, y, out)" in help_text
    example = "\n".join(
        line[4:] for line in RUN_DESCRIPTION.splitlines() if line.startswith("    ") or not line
    ).strip()
    program = tmp_path / "example.py"
    program.write_text(example + "\n")
    assert ntc("run", str(program)).returncode == 0
    program.write_text(example.replace("torch.maximum(x, y)), ", "torch.minimum(x, y)), ") + "\n")
    failed = ntc("run", str(program))
    assert failed.returncode != 0 and "mismatch" in failed.stderr


def test_flash_attention_ssa_is_generic_ops():
    result = ntc(
        "compile",
        str(PROGRAMS / "flash_attention.py"),
        "--emit",
        "ssa",
        "-Dis_causal=1",
        *HEAD_DIMS,
    )
    assert result.returncode == 0, result.stderr
    for op in ("scf.for", "linalg.dot", "reduce.max", "reduce.sum", "math.exp2", "select.where"):
        assert f"= {op}(" in result.stdout, op
    assert "mem.store(" in result.stdout
    assert "attention" not in result.stdout.split("\n", 2)[2].replace("@flash_attention", "")


def test_ssa_does_not_depend_on_hash_seeds():
    args = ("compile", str(PROGRAMS / "flash_attention.py"), "--emit", "ssa", "-Dis_causal=1")
    first, second = (ntc(*args, *HEAD_DIMS, seed=seed).stdout for seed in ("1", "2"))
    assert first == second and "scf.for" in first


def test_trace_is_json_with_the_pipeline():
    result = ntc("compile", str(PROGRAMS / "matmul.py"), "--emit", "trace")
    assert result.returncode == 0, result.stderr
    trace = json.loads(result.stdout.split("\n", 1)[1])
    assert [entry["pass"] for entry in trace][:4] == [
        "ssa.specialize_arguments",
        "ssa.canonicalize",
        "ssa.analyze_effects",
        "ssa.select_schedule",
    ]


def test_source_is_triton_with_the_ssa_hash():
    result = ntc("compile", str(PROGRAMS / "vector_add.py"), "--emit", "source")
    assert result.returncode == 0, result.stderr
    assert "# ssa-sha256: " in result.stdout and "@triton.jit" in result.stdout


# (backend, device): what the source of a masked softmax must use, in that language's idioms
IDIOMS = {
    ("cuda", "cpu"): ["__global__", "blockIdx.x", "threadIdx.x", "__shared__", "__syncthreads()"],
    ("tilelang", "cpu"): ["@T.prim_func", "with T.Kernel(", "T.alloc_local(", "T.serial("],
    ("tilelang", "cuda"): ["with T.Kernel(", "threads=", "T.alloc_shared(", "T.Parallel("],
    ("tvm", "cpu"): ["from tvm.script import tirx as T", "@T.prim_func", "T.serial(0, "],
    ("tvm", "cuda"): ["T.thread_binding(", 'thread="blockIdx.x"', "T.alloc_buffer("],
    ("triton", "cuda"): ["@triton.jit", "tl.program_id(0)", "tl.max("],
}


@pytest.mark.parametrize(("backend", "device"), sorted(IDIOMS))
def test_compile_for_every_backend_and_device(backend, device):
    args = ("--backend", backend, "--device", device, "-D", "BLOCK_SIZE=64")
    result = ntc("compile", str(PROGRAMS / "softmax.py"), *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"// kernel softmax ({backend} for {device}, source)")
    for idiom in IDIOMS[backend, device]:
        assert idiom in result.stdout, idiom
    # The operator's name is the kernel's name only (the heading and the definition).
    assert "ssa-sha256: " in result.stdout and result.stdout.count("softmax") == 2


def test_passes_lists_every_default_pass_with_its_category():
    result = ntc("passes")
    assert result.returncode == 0, result.stderr
    for name in ("ssa.canonicalize", "ssa.select_schedule", "ssa.triton.optimize_schedule"):
        assert name in result.stdout
    # Each category heads its passes, and each pass names the file it is in.
    headings = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert headings == ["hardware-independent:", "hardware-dependent:", "backend-specific:"]
    assert "compiler/passes/hardware_dependent/select_schedule/select_schedule.py" in result.stdout
    assert "compiler/backends/triton/schedule.py" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compile", "missing.py"], "missing.py: no such file"),
        (
            ["compile", str(PROGRAMS / "softmax.py"), "--backend", "cuda"],
            "needs the constexpr values BLOCK_SIZE at compile time; give them (-D BLOCK_SIZE=N)",
        ),
        (
            ["compile", str(PROGRAMS / "flash_attention.py"), "-D", "is_causal=0"],
            "where sizes must agree, give them values: -D q_size_3=N -D k_size_3=N",
        ),
        (
            ["compile", str(PROGRAMS / "flash_attention.py"), "--backend", "tilelang"],
            "the constexpr parameter(s) is_causal have no value, and the program is compiled for "
            "one; give them (-D is_causal=N)",
        ),
        (["compile", str(PROGRAMS / "softmax.py"), "-D", "BLOCK_SIZE"], "write NAME=VALUE"),
        (["compile", str(PROGRAMS / "matmul.py"), "-DBLOCK_SIZE_0=8"], "is outside [32, 1024]"),
        (
            ["compile", str(PROGRAMS / "softmax.py"), "-D", "BLOCK_SIZE=0"],
            "tile size BLOCK_SIZE is 0; a tile size must be a positive int",
        ),
    ],
)
def test_user_errors_say_what_to_do(args, message):
    result = ntc(*args)
    assert result.returncode == 1
    assert message in result.stderr


@pytest.mark.parametrize("command", ["compile", "run"])
def test_a_syntax_error_is_one_line_at_its_place(command, tmp_path):
    program = tmp_path / "broken.py"
    program.write_text("import ninetoothed\n\ndef application(x:\n")
    result = ntc(command, str(program))
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: {program}:3: ")
    assert "Traceback" not in result.stderr


EXCHANGE = """\
import ninetoothed
import ninetoothed.language as ntl
from ninetoothed import Tensor


def arrangement(x, y):
    return x.tile((64,)), y


def application(x, y):
    ntl.atomic_xchg(y.data_ptr(), ntl.max(x, 0))


tensors = (Tensor(1, dtype=ninetoothed.int32), Tensor(1, dtype=ninetoothed.int32))
"""


@pytest.mark.parametrize(
    "backend, message",
    [
        ("tilelang", "an atomic xchg, which TileLang's CUDA form lacks"),
        ("tvm", "mem.atomic is not legal for target tvm (cuda) and has no generic rewrite: this "),
    ],
)
def test_a_form_without_the_op_a_program_needs_is_one_error_line(backend, message, tmp_path):
    program = tmp_path / "exchange.py"
    program.write_text(EXCHANGE)
    result = ntc("compile", str(program), "--backend", backend, "--device", "cuda")
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unknown_backend_is_refused_with_the_known_ones():
    result = ntc("compile", str(PROGRAMS / "softmax.py"), "--backend", "cuad")
    assert result.returncode == 2
    assert "invalid choice: 'cuad' (choose from 'cuda', 'tilelang', 'triton', 'tvm')" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


ROW_SUM = """\
import ninetoothed
import ninetoothed.language as ntl
from ninetoothed import Tensor


def arrangement(x, out):
    return x.tile((1, -1)), out.tile((1,))


def application(x, out):
    out = ntl.sum(x, 1)  # noqa: F841


tensors = (Tensor(2, shape_options=(None, {"constexpr": True})), Tensor(1))
"""


def test_constexpr_sizes_stay_parameters_on_triton(tmp_path):
    """As NineToothed's make: without -D a constexpr size is a `tl.constexpr` parameter, and the
    kernel runs for any power-of-two value of it; other values are refused, naming the -D."""
    import torch

    from compiler.cli.program import program_kernels
    from compiler.runtime import LaunchError, launch

    program = tmp_path / "row_sum.py"
    program.write_text(ROW_SUM)
    result = ntc("compile", str(program))
    assert result.returncode == 0, result.stderr
    assert "x_size_1: tl.constexpr" in result.stdout
    assert "tl.arange(0, x_size_1)" in result.stdout
    handle = program_kernels(str(program), "triton")["row_sum"]
    artifact = handle.compile_declared()
    for columns in (16, 32):
        x, out = torch.randn(5, columns), torch.full((5,), float("nan"))
        launch(artifact, handle.bindings(x, out))
        torch.testing.assert_close(out, x.sum(1))
    with pytest.raises(LaunchError, match="compile with -D x_size_1=20"):
        launch(artifact, handle.bindings(torch.randn(5, 20), torch.empty(5)))


def test_aot_builds_a_library_that_runs(tmp_path):
    """`ntc aot` writes a program's kernel as sources, header and library, named as the file
    names the kernel; the library runs here and matches torch."""
    import torch

    from compiler.runtime import aot

    result = ntc("aot", "examples/add.py", "--out", str(tmp_path), "-D", "BLOCK_SIZE=128")
    assert result.returncode == 0, result.stderr
    assert f"launch_kernel in {tmp_path / 'kernel'}.h" in result.stdout
    assert "NineToothedResult launch_kernel(" in (tmp_path / "kernel.h").read_text()
    x, y, z = torch.randn(300), torch.randn(300), torch.full((300,), float("nan"))
    aot.load(tmp_path, "kernel")(x, y, z)
    torch.testing.assert_close(z, x + y)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--backend", "tvm", "--caller", "cuda"],
            "for cuda, use backend cuda or tilelang or triton",
        ),
        (["--backend", "triton"], "for cpu, use backend cuda or tilelang"),
        ([], "needs the constexpr values BLOCK_SIZE at compile time; give them (-D BLOCK_SIZE=N)"),
    ],
)
def test_aot_errors_say_what_to_do(args, message, tmp_path):
    result = ntc("aot", "examples/add.py", "--out", str(tmp_path), *args)
    assert result.returncode == 1
    assert message in result.stderr
