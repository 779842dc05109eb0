"""The compile-time bench script itself, on one kernel with one repetition (the full table is
`make bench`)."""

import importlib.util
import math
import sys
from pathlib import Path

import pytest

from compiler.compat.corpus import default_corpus

ROOT = Path(__file__).resolve().parents[2]


def _script():
    path = ROOT / "bench" / "compile_time.py"
    spec = importlib.util.spec_from_file_location("compile_time", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _rows(markdown: str) -> list[list[str]]:
    """The first table's rows (the table of times; where our time goes comes after it)."""
    table = markdown[markdown.index("\n|") + 1 :].split("\n\n")[0]
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")] for line in table.splitlines()
    ]


def _close(ratio: float, ours: float, theirs: float) -> bool:
    """`ratio` printed to 0.01 from medians printed to 0.1 ms: within the rounding of all three."""
    slack = (ours / theirs) * (0.05 / ours + 0.05 / theirs) + 0.005 + 1e-9
    return math.isclose(ratio, ours / theirs, abs_tol=slack)


def test_table_for_one_kernel(tmp_path, capsys):
    out = tmp_path / "compile_time.md"
    argv = ["--kernel", "vector_add", "--backend", "triton", "--backend", "cuda"]
    assert _script().main([*argv, "--repeat", "1", "--out", str(out)]) == 0

    document = out.read_text()
    assert "NineToothed" in document and "Medians of 1 repetition(s)" in document
    assert "at most 0.25x NineToothed's single-backend code generation" in document
    assert "- geometric mean <= 0.25: " in document
    assert "- each program <= 0.5: met for " in document and " of 2 (program, backend) " in document
    header, separator, *body = _rows(document)
    assert header == [
        "kernel",
        "NineToothed make (ms)",
        "ours triton (ms)",
        "ours cuda (ms)",
        "triton / NineToothed",
        "cuda / NineToothed",
    ]
    assert set(separator) == {"---"}
    assert [row[0] for row in body] == ["vector_add", "geometric mean"]
    for row in body:
        theirs, ours_triton, ours_cuda, ratio_triton, ratio_cuda = map(float, row[1:])
        assert theirs > 0 and ours_triton > 0 and ours_cuda > 0
        assert _close(ratio_triton, ours_triton, theirs)
        assert _close(ratio_cuda, ours_cuda, theirs)

    printed = capsys.readouterr().out
    assert "goal:" in printed and "vector_add: warm-up + 1 runs" in printed
    assert "| vector_add |" in printed and f"wrote {out}" in printed


def test_geometric_mean_row_over_two_kernels(tmp_path):
    out = tmp_path / "table.md"
    argv = ["--kernel", "sum_1d", "--kernel", "softmax", "--backend", "tvm", "--repeat", "1"]
    assert _script().main([*argv, "--out", str(out)]) == 0
    _, _, *body = _rows(out.read_text())
    assert [row[0] for row in body] == ["sum_1d", "softmax", "geometric mean"]
    (sum_1d, softmax, mean) = [[float(cell) for cell in row[1:]] for row in body]
    for column in range(3):
        expected = math.sqrt(sum_1d[column] * softmax[column])
        assert math.isclose(mean[column], expected, rel_tol=0.02, abs_tol=0.1)


def test_ntops_rows_are_skipped_with_the_reason_without_the_corpus(tmp_path, capsys):
    out = tmp_path / "table.md"
    argv = ["--kernel", "vector_add", "--kernel", "ntops.add", "--backend", "triton"]
    argv += ["--repeat", "1", "--corpus", str(tmp_path / "absent.tar.gz"), "--out", str(out)]
    assert _script().main(argv) == 0
    document = out.read_text()
    assert [row[0] for row in _rows(document)[2:]] == ["vector_add", "geometric mean"]
    assert "- ntops kernels skipped: the ntops corpus at " in document
    assert "ntops kernels skipped" in capsys.readouterr().out


@pytest.mark.skipif(default_corpus() is None, reason="no ntops corpus in ../shared/corpora")
def test_an_ntops_row(tmp_path):
    out = tmp_path / "table.md"
    argv = ["--kernel", "ntops.softmax", "--backend", "cuda", "--repeat", "1", "--out", str(out)]
    assert _script().main(argv) == 0
    header, _, row, mean = _rows(out.read_text())
    assert header[2:] == ["ours cuda (ms)", "cuda / NineToothed"]
    assert row[0] == "ntops.softmax" and float(row[1]) > 0 and float(row[2]) > 0
    assert mean[0] == "geometric mean"


@pytest.mark.parametrize(
    "argv", [["--kernel", "nope"], ["--backend", "nope"], ["--repeat", "0"]], ids=str
)
def test_bad_arguments_are_refused(argv):
    with pytest.raises(SystemExit):
        _script().main(argv)
