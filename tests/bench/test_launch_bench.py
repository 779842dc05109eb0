"""`make bench-launch` at its smallest: one kernel, one backend, one call a round. It checks the
table's shape and the measured sides, never the times (this machine is shared and noisy)."""

import importlib.util
from pathlib import Path

import torch

import compiler.dsl as ninetoothed
from compiler.dsl import Tensor

BENCH = Path(__file__).resolve().parents[2] / "bench" / "launch.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_launch", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_launch_bench_writes_its_table(tmp_path, capsys):
    bench = load_bench()
    out = tmp_path / "launch.md"
    argv = ["--calls", "2", "--repeat", "1", "--kernel", "vector_add", "--backend", "cuda"]
    assert bench.main([*argv, "--out", str(out)]) == 0
    text = out.read_text()
    assert "| kernel | torch eager | NineToothed host | cuda (cpu) |" in text
    row = next(line for line in text.splitlines() if line.startswith("| vector_add |"))
    torch_us, ninetoothed_us, ours = row.strip("| ").split(" | ")[1:]
    host, whole = map(float, ours.split(" / "))
    assert float(torch_us) > 0 and float(ninetoothed_us) > 0 and 0 < host <= whole
    assert "- cuda (cpu): host at most" in text
    assert "vector_add   cuda" in capsys.readouterr().out


def test_a_stubbed_plan_launches_nothing():
    """The host part is measured with each plan's entry stubbed: the call still does its host
    work, and the poisoned output stays as it was."""
    bench = load_bench()
    x, out = torch.randn(64), torch.full((64,), float("nan"))
    handle = ninetoothed.make(arrange, add, (Tensor(1), Tensor(1), Tensor(1)), backend="cuda")
    handle(x, x, out)
    torch.testing.assert_close(out, 2 * x)
    bench.stub_entries(handle)
    out.fill_(float("nan"))
    handle(x, x, out)
    assert torch.isnan(out).all()


def arrange(x, y, out):
    return x.tile((16,)), y.tile((16,)), out.tile((16,))


def add(x, y, out):
    out = x + y  # noqa: F841
