"""Measured autotuning in ssa.select_schedule: candidates, timing through a lent Tuner, the cache,
and the static rule when no tuner is lent."""

from __future__ import annotations

import json
import math

import pytest

from compiler.ir import parse_kernel
from compiler.passes.base import PassContext, PassError
from compiler.passes.hardware_dependent.select_schedule.autotune import Tuner, candidates
from compiler.passes.manager import PassManager
from compiler.passes.registry import parse_pipeline

TWO_SYMBOLS = """\
kernel @two(%x: buffer<f32>) attributes {grid = "1", meta = [["BM", 16, 256], ["BN", 1, 1024]]} {
  %0 = tile.arange() {size = "BM"} : tile<index[BM]>
  %1 = tile.arange() {size = "BN"} : tile<index[BN]>
  %2 = tile.expand_dims(%0) {axis = 1} : tile<index[BM, 1]>
  %3 = tile.broadcast(%2) {shape = ["BM", "BN"]} : tile<index[BM, BN]>
  %4 = mem.load(%x, %3) : tile<f32[BM, BN]>
  mem.store(%x, %3, %4)
}
"""


def schedule(target, tuner=None, pipeline="ssa.select_schedule", **options):
    kernel = parse_kernel(TWO_SYMBOLS)
    trace = PassManager(parse_pipeline(pipeline), PassContext(target, options, tuner)).run(kernel)
    return dict(kernel.attrs["schedule"]), trace[0].remarks


class FakeDevice:
    """Times a schedule by a cost the test knows: fastest at BM=64, BN=128."""

    def __init__(self, failing=()):
        self.measured, self.failing = [], failing

    def __call__(self, schedule):
        self.measured.append(dict(schedule))
        if schedule in self.failing:
            raise RuntimeError("out of shared memory")
        bm, bn = schedule.get("BM", 64), schedule["BN"]  # the pass times only the open symbols
        return 1e-3 * (1 + abs(math.log2(bm / 64)) + abs(math.log2(bn / 128)))


def test_candidates_are_powers_of_two_in_bounds_nearest_first():
    found = candidates({"BM": (16, 256), "BN": (1, 4)}, {"BM": 64, "BN": 2}, limit=5)
    assert found[0] == {"BM": 64, "BN": 2}
    assert len(found) == 5 and len({tuple(c.items()) for c in found}) == 5
    assert all(c["BM"] in (16, 32, 64, 128, 256) and c["BN"] in (1, 2, 4) for c in found)
    assert all(abs(math.log2(c["BM"] / 64)) + abs(math.log2(c["BN"] / 2)) <= 1 for c in found)


def test_without_a_tuner_the_static_rule_decides_and_says_so(make_target):
    chosen, remarks = schedule(make_target())
    assert chosen == {"BM": 64, "BN": 64}
    assert "static rule (nothing lent a tuner" in remarks[0]


def test_the_fastest_candidate_wins_and_the_trace_says_why(make_target, tmp_path):
    device = FakeDevice()
    tuner = Tuner("x=f32[100] · stand-in · fake GPU", device, tmp_path / "tune.json")
    chosen, remarks = schedule(make_target(), tuner, max_num_configs=12)
    assert chosen == {"BM": 64, "BN": 128}
    assert len(device.measured) == 12
    assert "fastest of 12 candidates measured on x=f32[100] · stand-in · fake GPU" in remarks[0]
    assert "BM=64,BN=128 1.0000 ms" in remarks[0]


def test_the_best_is_cached_per_kernel_and_identity(make_target, tmp_path):
    cache = tmp_path / "tune.json"
    schedule(make_target(), Tuner("shapes A", FakeDevice(), cache), max_num_configs=12)
    again = FakeDevice()
    chosen, remarks = schedule(make_target(), Tuner("shapes A", again, cache), max_num_configs=12)
    assert chosen == {"BM": 64, "BN": 128} and again.measured == []
    assert remarks[0].startswith("schedule BM=64, BN=128 (cached: measured earlier on shapes A")
    other = FakeDevice()
    schedule(make_target(), Tuner("shapes B", other, cache), max_num_configs=12)
    assert other.measured and len(json.loads(cache.read_text())) == 2


def test_a_candidate_that_fails_is_skipped_and_reported(make_target, tmp_path):
    device = FakeDevice(failing=[{"BM": 64, "BN": 128}])
    chosen, remarks = schedule(make_target(), Tuner("t", device, None), max_num_configs=12)
    assert chosen != {"BM": 64, "BN": 128}
    assert "1 failed: BM=64,BN=128 failed: RuntimeError('out of shared memory')" in remarks[0]


def test_all_candidates_failing_is_an_error_with_the_fix(make_target):
    configs = [{"BM": 64, "BN": 128}]
    tuner = Tuner("t", FakeDevice(failing=configs), None)
    with pytest.raises(PassError, match="none of 1 candidate schedules ran.*give the meta values"):
        schedule(make_target(), tuner, configs=configs)


def test_the_callers_configurations_are_the_candidates(make_target):
    device = FakeDevice()
    configs = [{"BM": 16, "BN": 16}, {"BM": 32, "BN": 256}]
    chosen, _ = schedule(make_target(), Tuner("t", device, None), configs=configs)
    assert device.measured == configs and chosen == {"BM": 32, "BN": 256}
    with pytest.raises(
        PassError, match=r"must give exactly the untuned meta symbols \['BM', 'BN'\]"
    ):
        schedule(make_target(), Tuner("t", device, None), configs=[{"BM": 16}])


def test_given_values_are_not_tuned_and_tuning_can_be_turned_off(make_target):
    device = FakeDevice()
    chosen, _ = schedule(make_target(), Tuner("t", device, None), BM=32, max_num_configs=3)
    assert chosen["BM"] == 32 and device.measured
    assert all(list(c) == ["BN"] for c in device.measured)
    off = FakeDevice()
    chosen, remarks = schedule(
        make_target(), Tuner("t", off, None), "ssa.select_schedule{tune=false}"
    )
    assert off.measured == [] and "static rule (tuning is off)" in remarks[0]


def test_tuning_respects_the_targets_tile_cap(make_target):
    device = FakeDevice()
    schedule(make_target(tile_cap=32), Tuner("t", device, None), max_num_configs=50)
    assert max(c["BM"] for c in device.measured) == 32
    assert max(c["BN"] for c in device.measured) == 32
