"""The PNG `ntc visualize` writes, and the command itself (`compiler.cli.main`)."""

from pathlib import Path

import numpy as np
import pytest
import torch
from matplotlib.colors import to_rgb
from PIL import Image

from compiler.cli import main
from compiler.suite import SUITE
from compiler.suite.checking import build
from compiler.visualize import GridLayout, program_accesses, render
from compiler.visualize.render import NOW, OTHER, UNTOUCHED

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "compiler" / "suite" / "programs"


def _colour(image: np.ndarray, pixel: tuple[int, int]) -> np.ndarray:
    x, y = pixel
    return image[y, x, :3] / 255


def test_cells_show_the_chosen_iteration_other_iterations_and_untouched(tmp_path):
    handle = build(SUITE["matmul"], "triton")
    args = [torch.randn(40, 50), torch.randn(50, 30), torch.empty(40, 30)]
    accesses = program_accesses(handle, args, {}, pid=5, loop=1)  # rows 32.., cols 16.., k 16..
    picture = render(accesses, tmp_path / "matmul.png")
    image = np.asarray(Image.open(picture.path).convert("RGB"))
    assert image.shape[:2] == (picture.height, picture.width)
    assert 600 <= picture.width <= 2000 and 300 <= picture.height <= 2000

    def colour(tensor, coord):
        return _colour(image, picture.pixel(tensor, coord))

    assert np.allclose(colour("input", (35, 20)), to_rgb(NOW[True, False]), atol=0.02)
    assert np.allclose(colour("input", (35, 3)), to_rgb(OTHER[True, False]), atol=0.02)
    assert np.allclose(colour("input", (3, 3)), to_rgb(UNTOUCHED), atol=0.02)
    assert np.allclose(colour("other", (20, 20)), to_rgb(NOW[True, False]), atol=0.02)
    assert np.allclose(colour("output", (39, 29)), to_rgb(NOW[False, True]), atol=0.02)
    assert np.allclose(colour("output", (0, 29)), to_rgb(UNTOUCHED), atol=0.02)


def test_blocks_of_a_four_dim_tensor(tmp_path):
    handle = build(SUITE["flash_attention"], "triton")
    shape = (1, 2, 32, 16)
    q, k, v = (torch.randn(shape).half() for _ in range(3))
    args = [q, k, v, 0.25, torch.empty(shape).half()]
    accesses = program_accesses(handle, args, {"is_causal": False}, pid=3, loop=0)
    picture = render(accesses, tmp_path / "attention.png")
    image = np.asarray(Image.open(picture.path).convert("RGB"))
    # pid 3: head 1, query rows 16..31; key block 0 at iteration 0, block 1 at the other.
    assert np.allclose(_colour(image, picture.pixel("q", (0, 1, 20, 5))), to_rgb(NOW[True, False]))
    assert np.allclose(_colour(image, picture.pixel("q", (0, 0, 20, 5))), to_rgb(UNTOUCHED))
    k_other = _colour(image, picture.pixel("k", (0, 1, 20, 5)))
    assert np.allclose(k_other, to_rgb(OTHER[True, False]), atol=0.02)
    assert np.allclose(_colour(image, picture.pixel("k", (0, 1, 3, 5))), to_rgb(NOW[True, False]))


@pytest.mark.parametrize(
    ("shape", "cells"),
    [((1000,), 1000), ((5, 7), 35), ((16, 4, 2, 2), 256), ((2, 3, 5), 30)],
)
def test_layouts_give_every_element_its_own_cell(shape, cells):
    layout = GridLayout.of(shape)
    rows, cols = layout.cells()
    assert len({(r, c) for r, c in zip(rows, cols, strict=True)}) == cells
    assert rows.max() < layout.rows and cols.max() < layout.cols


@pytest.mark.parametrize(
    ("program", "options"),
    [
        ("vector_add", ["--pid", "3"]),
        ("matmul", ["--pid", "2", "--loop", "1"]),
        ("conv2d", ["--pid", "1"]),
        ("flash_attention", ["--pid", "1", "--loop", "1"]),
    ],
)
def test_cli_writes_the_png_and_a_summary(program, options, tmp_path, capsys):
    out = tmp_path / f"{program}.png"
    assert main(["visualize", str(PROGRAMS / f"{program}.py"), *options, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed
    assert Image.open(out).format == "PNG"
    assert "loaded" in printed and "stored" in printed


def test_cli_takes_shapes_and_defines(tmp_path, capsys):
    out = tmp_path / "matmul.png"
    shapes = ["--shape", "input=40x50", "--shape", "other=50x30", "--shape", "output=40x30"]
    argv = ["visualize", str(PROGRAMS / "matmul.py"), "--pid", "5", "--loop", "1", *shapes]
    assert main([*argv, "-D", "BLOCK_SIZE_K=32", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "input [40x50], 2000 elements: 144 loaded at iteration 1 (400 in all" in printed
    assert "output [40x30], 1200 elements: 112 stored outside the loop" in printed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["matmul.py", "--pid", "4"], "valid program ids: 0..3"),
        (["matmul.py", "--pid", "0", "--loop", "2"], "valid loop iterations: 0..1"),
        (["vector_add.py", "--pid", "0", "--loop", "0"], "has no loop"),
        (["matmul.py", "--pid", "0", "--shape", "input=4"], "--shape input=16x16"),
        (["matmul.py", "--pid", "0", "--kernel", "nope"], "defines matmul"),
        (["matmul.py", "--pid", "0", "-D", "BLOCK=big"], "-D BLOCK=big"),
    ],
)
def test_cli_errors_name_the_fix(argv, message, tmp_path, capsys):
    path, *options = argv
    out = tmp_path / "x.png"
    assert main(["visualize", str(PROGRAMS / path), *options, "--out", str(out)]) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_cli_needs_shapes_outside_the_suite(tmp_path, capsys):
    argv = ["visualize", str(ROOT / "examples" / "add.py"), "--pid", "0"]
    assert main([*argv, "--out", str(tmp_path / "x.png")]) == 1
    assert "tensor x needs a shape: add --shape x=16" in capsys.readouterr().err
    shapes = ["--shape", "x=100", "--shape", "y=100", "--shape", "z=100"]
    assert main([*argv, *shapes, "--out", str(tmp_path / "x.png")]) == 1
    assert "add -D BLOCK_SIZE=VALUE" in capsys.readouterr().err
    out = tmp_path / "add.png"
    assert main([*argv, *shapes, "-D", "BLOCK_SIZE=32", "--pid", "3", "--out", str(out)]) == 0
    assert "x [100], 100 elements: 4 loaded" in capsys.readouterr().out
