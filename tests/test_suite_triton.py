"""Every suite kernel, compiled by this compiler for Triton and run on the CPU interpreter, matches
torch on fresh random inputs with ragged sizes and NaN-poisoned outputs."""

import pytest

from compiler.checking import check
from compiler.ir import parse_kernel, print_kernel
from compiler.passes.registry import default_pipeline
from compiler.suite import SUITE


@pytest.fixture(scope="module", params=sorted(SUITE))
def result(request):
    return check(SUITE[request.param], "triton", seed=1234)


def test_matches_torch(result):
    assert result.passed, f"{result.name}: max |error| {result.max_error}"


def test_trace_lists_default_pipeline(result):
    names = [entry["pass"] for entry in result.artifact.trace]
    assert names == default_pipeline("triton").split(",")
    assert all(entry["verified"] for entry in result.artifact.trace)


def test_text_round_trip(result):
    for text in [result.artifact.initial_ssa] + [e["ir"] for e in result.artifact.trace]:
        assert print_kernel(parse_kernel(text)) == text
