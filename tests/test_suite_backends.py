"""The kernel x backend matrix: every suite kernel, compiled by this compiler for every backend and
run on this machine's CPU (Triton's interpreter, CUDA C++ through g++ and a host shim, TileLang's C
target, TVM's LLVM target), matches torch on fresh random inputs with ragged sizes and
NaN-poisoned outputs."""

import itertools

import pytest

from compiler.backends import TARGETS
from compiler.ir import parse_kernel, print_kernel
from compiler.passes.registry import default_pipeline
from compiler.suite import SUITE
from compiler.suite.checking import check


@pytest.fixture(
    scope="module",
    params=list(itertools.product(sorted(TARGETS), sorted(SUITE))),
    ids=lambda pair: f"{pair[0]}-{pair[1]}",
)
def result(request):
    backend, name = request.param
    return check(SUITE[name], backend, seed=1234)


def test_matches_torch(result):
    assert result.passed, f"{result.name}: max |error| {result.max_error}"


def test_trace_lists_default_pipeline(result):
    names = [entry["pass"] for entry in result.artifact.trace]
    assert names == default_pipeline(result.backend).split(",")
    assert all(entry["verified"] for entry in result.artifact.trace)


def test_text_round_trip(result):
    for text in [result.artifact.initial_ssa] + [e["ir"] for e in result.artifact.trace]:
        assert print_kernel(parse_kernel(text)) == text


def _constant(value):
    op = value.owner
    return op.attrs["value"] if getattr(op, "name", None) == "arith.constant" else None


def test_emitted_code_is_clean(result):
    """Address math and masks are hoisted out of loops, and no trivial terms are left."""
    kernel = parse_kernel(result.artifact.ssa)
    for op in kernel.walk():
        ints = [c if type(c) is int else None for c in map(_constant, op.operands)]
        if op.name == "arith.add" and 0 in ints or op.name == "arith.sub" and ints[1] == 0:
            raise AssertionError(f"{result.name}: {op.name} with 0 survived")
        if op.name == "arith.mul" and {0, 1} & set(ints):
            raise AssertionError(f"{result.name}: multiplication by 0 or 1 survived")
        if op.name != "scf.for":
            continue
        body = op.regions[0].block
        defined_inside = set(body.args)
        for inner in body.ops:
            defined_inside.update(inner.results)
        for inner in body.ops:
            invariant = not defined_inside.intersection(inner.operands) and not inner.regions
            if invariant and inner.name.split(".")[0] not in ("mem", "scf"):
                raise AssertionError(f"{result.name}: loop-invariant {inner.name} left in a loop")
