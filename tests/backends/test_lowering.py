"""lower_unified_ssa_artifact end to end: pipeline, trace, artifact, launch."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import load_ir, poisoned

from compiler.backends import lower_unified_ssa_artifact
from compiler.backends.emitter import ssa_sha256
from compiler.ir import parse_kernel, print_kernel
from compiler.passes.registry import default_pipeline
from compiler.runtime import launch


@pytest.fixture(scope="module")
def lowered():
    kernel = load_ir("masked_add_meta")
    before = print_kernel(kernel)
    artifact = lower_unified_ssa_artifact(kernel, "triton", options={"BLOCK_SIZE_0": 128})
    return kernel, before, artifact


def test_callers_kernel_is_untouched(lowered):
    kernel, before, artifact = lowered
    assert print_kernel(kernel) == before == artifact.initial_ssa


def test_trace_follows_the_default_pipeline(lowered):
    _, _, artifact = lowered
    assert [entry["pass"] for entry in artifact.trace] == default_pipeline("triton").split(",")
    assert artifact.trace[-1]["ir"] == artifact.ssa
    assert json.loads(artifact.trace_json()) == artifact.trace


def test_artifact_fields(lowered):
    _, _, artifact = lowered
    assert artifact.schedule == {"BLOCK_SIZE_0": 128}
    assert (artifact.num_warps, artifact.num_stages) == (4, 1)
    assert artifact.grid == "(n + BLOCK_SIZE_0 - 1) // BLOCK_SIZE_0"
    assert artifact.args == [("x", "buffer"), ("y", "buffer"), ("out", "buffer"), ("n", "index")]
    assert artifact.ssa_hash == ssa_sha256(artifact.ssa)
    assert artifact.source.startswith(f"# ssa-sha256: {artifact.ssa_hash}\n")
    assert print_kernel(parse_kernel(artifact.ssa)) == artifact.ssa


@pytest.mark.parametrize("n", [1, 129, 1000])
def test_runs(lowered, n):
    _, _, artifact = lowered
    x, y, out = torch.randn(n), torch.randn(n), poisoned(n)
    launch(artifact, {"x": x, "y": y, "out": out, "n": n})
    torch.testing.assert_close(out, x + y)


def test_explicit_pipeline_string():
    artifact = lower_unified_ssa_artifact(
        load_ir("masked_add_meta"),
        "triton",
        pipeline="ssa.select_schedule{BLOCK_SIZE_0=32},ssa.triton.optimize_schedule{num_warps=2}",
    )
    assert (artifact.schedule, artifact.num_warps) == ({"BLOCK_SIZE_0": 32}, 2)
    assert "tl.arange(0, 32)" in artifact.source


def test_unknown_backend():
    with pytest.raises(KeyError, match="'fortran' for device 'cpu': the backend is unknown"):
        lower_unified_ssa_artifact(load_ir("masked_add"), "fortran")
