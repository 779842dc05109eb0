"""The GPU check script itself, run on the CPU for one kernel (the matrix on a GPU is `make
gpu-check`)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "bench" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table_on_the_cpu(tmp_path, capsys):
    out = tmp_path / "table.md"
    argv = ["--device", "cpu", "--kernel", "vector_add", "--backend", "triton", "--out", str(out)]
    assert _script().main(argv) == 0
    table = out.read_text()
    assert "| kernel | triton |" in table and "| vector_add | ok " in table
    assert "wrote" in capsys.readouterr().out


def test_without_a_gpu_it_says_where_to_run(monkeypatch, capsys):
    module = _script()
    monkeypatch.setattr(module.torch.cuda, "is_available", lambda: False)
    assert module.main([]) == 2
    assert "run it on a GPU machine" in capsys.readouterr().out
