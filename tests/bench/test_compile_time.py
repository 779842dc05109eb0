"""The compile-time bench script itself, on one kernel with one repetition (the full table is
`make bench`)."""

import importlib.util
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    path = ROOT / "bench" / "compile_time.py"
    spec = importlib.util.spec_from_file_location("compile_time", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(markdown: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("|")
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
    assert "no slower than NineToothed" in document
    assert "goal met for " in document and " of 2 (kernel, backend) pairs" in document
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


@pytest.mark.parametrize(
    "argv", [["--kernel", "nope"], ["--backend", "nope"], ["--repeat", "0"]], ids=str
)
def test_bad_arguments_are_refused(argv):
    with pytest.raises(SystemExit):
        _script().main(argv)
