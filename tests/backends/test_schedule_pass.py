"""ssa.triton.optimize_schedule: num_warps / num_stages from options, else a rule."""

from __future__ import annotations

import pytest
from conftest import load_ir

from compiler.backends.triton import TARGET as TRITON
from compiler.backends.triton import OptimizeSchedule
from compiler.ir import parse_kernel
from compiler.passes.base import PassContext
from compiler.passes.manager import PassManager
from compiler.passes.registry import all_passes, parse_pipeline

LARGE_TILE = """\
kernel @large() attributes {grid = "1"} {
  %0 = tile.arange() {size = 16384} : tile<index[16384]>
}
"""


def scheduled(kernel, pipeline="ssa.triton.optimize_schedule", **options):
    PassManager(parse_pipeline(pipeline), PassContext(TRITON, options)).run(kernel)
    return kernel.attrs["num_warps"], kernel.attrs["num_stages"]


@pytest.mark.parametrize(
    "kernel, expected",
    [
        (lambda: load_ir("masked_add"), (4, 1)),
        (lambda: load_ir("tiled_dot_loop"), (4, 2)),
        (lambda: parse_kernel(LARGE_TILE), (8, 1)),
    ],
)
def test_rule(kernel, expected):
    assert scheduled(kernel()) == expected


def test_pass_options_win_over_context_options():
    kernel = load_ir("tiled_dot_loop")
    assert scheduled(kernel, num_warps=2) == (2, 2)
    pipeline = "ssa.triton.optimize_schedule{num_warps=8 num_stages=4}"
    assert scheduled(kernel, pipeline, num_warps=2, num_stages=3) == (8, 4)


def test_registered_as_backend_specific():
    assert OptimizeSchedule in all_passes("backend-specific")
    assert OptimizeSchedule.category == "backend-specific"


def test_reports_change_only_when_attrs_change():
    kernel = load_ir("masked_add")
    context = PassContext(TRITON, {})
    assert OptimizeSchedule().run(kernel, context) is True
    assert OptimizeSchedule().run(kernel, context) is False
