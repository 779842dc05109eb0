"""Vector accesses: with what a launch found (unit index arguments, aligned buffers) a target with
`vector_access` gives each thread consecutive lanes and loads and stores them as one vector where
the mask holds in every lane and the offset is aligned, lane by lane elsewhere. Suite kernels so
lowered run in the reference interpreter (which refuses a vector access at an offset that is not
a multiple of its lanes) on poisoned outputs and must match torch, on sizes that are whole
vectors and on ragged ones."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_lower_tiles_to_loops import _loop_target, _run

from compiler.ir import parse_kernel
from compiler.passes import PassContext, PassError, PassManager, default_pipeline, parse_pipeline
from compiler.passes.helpers.constants import constant_value
from compiler.passes.helpers.lanes import CONVEX, UNIFORM, lane_forms
from compiler.runtime.grid import evaluate_grid
from compiler.suite import SUITE
from compiler.suite.checking import build

THREADS = {"parallel": "threads", "program_ids": "launch", "private": True}


def _vector_target(make_target, **capabilities):
    target = _loop_target(make_target, THREADS)
    target.capabilities.update({"tile_cap": 256, "vector_access": {"bytes": 16}} | capabilities)
    return target


def _specialized(name: str, target, interpret, ragged: bool, aligned: bool = True):
    """Suite kernel `name` lowered for `target` knowing its launch's unit index arguments and
    (where `aligned`) that every buffer is aligned; run in the interpreter against torch."""
    kernel = SUITE[name]
    handle = build(kernel, "triton")
    args = kernel.make_args(0, ragged=ragged)
    bindings = handle.bindings(*args, **kernel.call_kwargs)
    work = parse_kernel(handle.compile(*args, **kernel.call_kwargs).initial_ssa)
    work.attrs["unit_arguments"] = [
        v.name for v in work.args if v.type.dtype == "index" and bindings.get(v.name) == 1
    ]
    buffers = [v.name for v in work.args if isinstance(bindings.get(v.name), torch.Tensor)]
    work.attrs["aligned"] = buffers if aligned else []
    context = PassContext(target=target, options={"num_warps": 1})
    PassManager(parse_pipeline(default_pipeline("triton")), context).run(work)
    expected = kernel.reference(args)
    numbers = {k: v for k, v in bindings.items() if isinstance(v, int)}
    grid = evaluate_grid(work.attrs["grid"], dict(work.attrs["schedule"]) | numbers)
    _run(work, bindings, grid, interpret)
    for index, want in zip(kernel.outputs, expected, strict=True):
        got = args[index].double()
        assert torch.allclose(got, want.double(), rtol=kernel.rtol, atol=kernel.atol), name
    return work


def _vectors(work) -> dict[str, int]:
    names = [op.name for op in work.walk()]
    lanes = {
        op.attrs["lanes"] for op in work.walk() if op.name == "scf.for" and "lanes" in op.attrs
    }
    return {
        "load": names.count("mem.load_lanes"),
        "store": names.count("mem.store_lanes"),
        "lanes": sorted(lanes),
    }


@pytest.mark.parametrize("ragged", [False, True], ids=["whole", "ragged"])
@pytest.mark.parametrize(
    ("name", "vectors"),
    [
        # 64 elements over 32 threads: two f32 lanes each
        ("vector_add", {"load": 2, "store": 1, "lanes": [2]}),
        ("fused_elementwise", {"load": 4, "store": 1, "lanes": [4]}),  # x is loaded twice
        ("softmax", {"load": 1, "store": 1, "lanes": [2]}),  # rows of 64: a row's lanes share it
        ("rms_norm", {"load": 2, "store": 1, "lanes": [2]}),
        # even and odd halves of a row: offsets step by 2 elements, no vectors
        ("rotary_embedding", {"load": 0, "store": 0, "lanes": []}),
    ],
)
def test_a_threads_lanes_go_as_vectors(name, vectors, ragged, make_target, interpret):
    work = _specialized(name, _vector_target(make_target), interpret, ragged)
    assert _vectors(work) == vectors


def test_no_vectors_without_aligned_buffers_or_the_capability(make_target, interpret):
    unaligned = _specialized("softmax", _vector_target(make_target), interpret, False, False)
    assert _vectors(unaligned) == {"load": 0, "store": 0, "lanes": []}
    target = _vector_target(make_target)
    del target.capabilities["vector_access"]
    assert _vectors(_specialized("vector_add", target, interpret, False))["lanes"] == []


def test_without_unit_strides_offsets_do_not_step_by_one(make_target):
    kernel = SUITE["vector_add"]
    handle = build(kernel, "triton")
    args = kernel.make_args(0)
    work = parse_kernel(handle.compile(*args).initial_ssa)
    work.attrs["aligned"] = ["input", "other", "output"]
    context = PassContext(target=_vector_target(make_target), options={"num_warps": 1})
    PassManager(parse_pipeline(default_pipeline("triton")), context).run(work)
    assert _vectors(work) == {"load": 0, "store": 0, "lanes": []}


def _forms(body: str, lanes: int = 4) -> dict[str, object]:
    """The lane forms of the values of a loop body over %p (its position), by name."""
    text = f"""
kernel @k(%n: index, %s: index) attributes {{grid = "1"}} {{
  %c = arith.constant() {{value = 64}} : index
  scf.parallel(%c) {{
  ^(%p: index):
{body}
    scf.yield()
  }}
}}
"""
    kernel = parse_kernel(text)
    block = kernel.body.ops[1].regions[0].block
    forms = lane_forms(block.ops, block.args[0], lanes)
    names = [line.split("=")[0].strip().lstrip("%") for line in body.strip().splitlines()]
    return {name: forms.get(op.result) for name, op in zip(names, block.ops, strict=False)}


def test_lane_forms_follow_rows_of_a_tile_and_masks():
    forms = _forms(
        """    %c8 = arith.constant() {value = 8} : index
    %c6 = arith.constant() {value = 6} : index
    %row = arith.idiv(%p, %c8) : index
    %col = arith.irem(%p, %c8) : index
    %at = arith.mul(%row, %s) : index
    %off = arith.add(%at, %col) : index
    %in = arith.cmp(%col, %n) {pred = "lt"} : i1
    %on = arith.cmp(%row, %n) {pred = "lt"} : i1
    %both = arith.and(%in, %on) : i1
    %odd = arith.cmp(%col, %n) {pred = "ne"} : i1
    %col6 = arith.irem(%p, %c6) : index
    %scaled = arith.mul(%p, %s) : index"""
    )
    assert forms["row"].step == 0 and forms["col"].step == 1 and forms["off"].step == 1
    assert (forms["in"], forms["on"], forms["both"]) == (CONVEX, UNIFORM, CONVEX)
    assert forms["odd"] is None  # true around one lane: not an interval
    assert forms["col6"] is None  # a row of 6 is not whole vectors of 4
    assert forms["scaled"] is None  # a stride the launch did not fix


def test_specialized_arguments_must_be_index_arguments():
    kernel = parse_kernel(
        'kernel @k(%a: buffer<f32>, %n: index) attributes {grid = "1", unit_arguments = ["a"]} {\n'
        "  %0 = mem.load(%a, %n) : f32\n"
        "  mem.store(%a, %n, %0)\n"
        "}\n"
    )
    with pytest.raises(PassError, match="has no index argument 'a' to specialize"):
        PassManager(parse_pipeline("ssa.specialize_arguments"), PassContext()).run(kernel)
    kernel.attrs["unit_arguments"] = ["n"]
    PassManager(parse_pipeline("ssa.specialize_arguments,ssa.canonicalize"), PassContext()).run(
        kernel
    )
    assert [op.attrs.get("value") for op in kernel.body.ops][:1] == [1]


MULTIPLE = """\
kernel @k(%a: buffer<f32>, %n: index, %s: index) attributes {grid = "1", multiple_arguments = \
[["n", 16], ["s", 16]], unit_arguments = ["s"]} {
  %0 = mem.load(%a, %n) : f32
  %1 = mem.load(%a, %s) : f32
  %2 = arith.add(%0, %1) : f32
  mem.store(%a, %n, %2)
}
"""


def test_arguments_a_divisor_divides_read_as_its_multiples(interpret):
    """`multiple_arguments`: each use of `n` reads `(n // 16) * 16`, the same number, in the form
    a target's analysis proves a multiple of 16; a unit argument is 1 (which wins), and the
    kernel computes what it did."""
    kernel = parse_kernel(MULTIPLE)
    PassManager(parse_pipeline("ssa.specialize_arguments"), PassContext()).run(kernel)
    loads = [op for op in kernel.walk() if op.name == "mem.load"]
    multiple = loads[0].operands[1].owner
    assert multiple.name == "arith.mul" and multiple.operands[0].owner.name == "arith.idiv"
    assert multiple.operands[0].owner.operands[0] is kernel.arg("n")
    assert [constant_value(v) for v in (multiple.operands[1], loads[1].operands[1])] == [16, 1]
    buffer = np.arange(64, dtype=np.float32)
    interpret(kernel, {"a": buffer, "n": 32, "s": 1})
    assert buffer[32] == 33
    kernel.attrs["multiple_arguments"] = [["a", 16]]
    with pytest.raises(PassError, match="has no index argument 'a' to specialize"):
        PassManager(parse_pipeline("ssa.specialize_arguments"), PassContext()).run(kernel)
