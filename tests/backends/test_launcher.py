"""`launch` checks bindings against the artifact's arguments before anything runs."""

from __future__ import annotations

import dataclasses
import os

import pytest
import torch
from conftest import poisoned, triton_artifact

from compiler.runtime import LaunchError, launch
from compiler.runtime.triton_mode import interpreting


@pytest.fixture(scope="module")
def add():
    return triton_artifact("masked_add")


def bindings(**changes):
    return {"x": torch.ones(8), "y": torch.ones(8), "out": poisoned(8), "n": 8} | changes


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"n": None}, "argument 'n' needs a Python index number, got None"),
        ({"n": True}, "argument 'n' needs a Python index number, got True"),
        ({"n": 8.0}, "argument 'n' needs a Python index number"),
        ({"x": [1.0] * 8}, "argument 'x' needs a tensor of f32, got list"),
        ({"x": torch.ones(8, dtype=torch.float64)}, "'x' needs f32 elements, got torch.float64"),
    ],
)
def test_bad_bindings(add, changes, message):
    with pytest.raises(LaunchError, match=message):
        launch(add, bindings(**changes))


def test_missing_binding(add):
    values = bindings()
    del values["y"]
    with pytest.raises(LaunchError, match="argument 'y' is not bound; bind every argument: x, y"):
        launch(add, values)


def test_extra_bindings_are_ignored_and_empty_grids_skip(add):
    values = bindings(n=0, x_stride_0=1)
    launch(add, values)  # grid (0 + 63) // 64 == 0: nothing runs
    assert values["out"].isnan().all()


def test_launch_options_reach_triton(add):
    launch(dataclasses.replace(add, num_warps=8, num_stages=3), values := bindings())
    assert torch.equal(values["out"], torch.full((8,), 2.0))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only switch")
def test_interpreter_is_switched_on_without_a_gpu():
    assert interpreting()
    assert os.environ["TRITON_INTERPRET"] == "1"


def test_backend_without_launcher(add):
    with pytest.raises(LaunchError, match="no launcher for backend 'nowhere'"):
        launch(dataclasses.replace(add, backend="nowhere"), bindings())
