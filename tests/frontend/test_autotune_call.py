"""Measured autotuning through a kernel call: the handle lends the schedule pass a tuner that
compiles and times candidates on the call's own arguments (forced on the CPU with
autotune="measure"; by default only a GPU measures)."""

import json

import pytest
import torch

import compiler.dsl
from compiler.errors import CompileError
from compiler.suite import SUITE, load_program


@pytest.fixture
def vector_add(tmp_path, monkeypatch):
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    module = load_program(SUITE["vector_add"].path, compiler.dsl)

    def make(**options):
        return compiler.dsl.make(
            module.arrangement, module.application, module.tensors, device="cpu", **options
        )

    make.block_size = module.BLOCK_SIZE.name  # block_size() numbers each symbol it makes
    return make


def call(handle, size=300):
    x, y, out = torch.randn(size), torch.randn(size), torch.full((size,), float("nan"))
    handle(x, y, out)
    torch.testing.assert_close(out, x + y)
    entry = next(e for e in handle.trace if e["pass"] == "ssa.select_schedule")
    return entry["remarks"][0]


def test_on_the_cpu_the_static_rule_decides(vector_add):
    assert "static rule (nothing lent a tuner" in call(vector_add())


def test_measured_candidates_pick_a_schedule_that_is_cached(vector_add, tmp_path):
    remark = call(vector_add(autotune="measure", max_num_configs=2))
    assert "fastest of 2 candidates measured on input=float32[300] other=float32[300]" in remark
    assert "· triton · cpu" in remark
    (entry,) = json.loads((tmp_path / "autotune.json").read_text()).values()
    ((name, value),) = entry["schedule"].items()
    assert name == vector_add.block_size and "fastest of 2 candidates" in remark
    assert remark.startswith(f"schedule {name}={value} (fastest")
    assert "cached: measured earlier" in call(vector_add(autotune="measure", max_num_configs=2))
    assert "fastest of 2" in call(vector_add(autotune="measure", max_num_configs=2), size=301)


def test_the_callers_configurations_are_timed(vector_add):
    name = vector_add.block_size
    handle = vector_add(autotune="measure", configs=[{name: 32}, {name: 512}])
    remark = call(handle)
    assert "fastest of 2 candidates" in remark
    assert f"{name}=32 " in remark and f"{name}=512 " in remark


def test_an_unknown_mode_is_refused(vector_add):
    with pytest.raises(CompileError, match="autotune='always': choose one of auto, measure, off"):
        vector_add(autotune="always")


def test_a_second_call_with_the_same_shapes_times_nothing(vector_add, monkeypatch):
    import compiler.frontend.tuning as tuning

    timed = []
    real = tuning.time_launch
    monkeypatch.setattr(tuning, "time_launch", lambda *a: timed.append(1) or real(*a))
    handle = vector_add(autotune="measure", max_num_configs=2)
    call(handle)
    assert len(timed) == 2
    call(handle)
    assert len(timed) == 2
