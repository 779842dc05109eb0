"""Box accesses (`passes/boxes.py`), their block copies in the loop form, and pipelined loops."""

from __future__ import annotations

import pytest
from test_lower_tiles_to_loops import FORMS, _loop_target, _lowered, _matches_torch

from compiler.ir import parse_kernel
from compiler.passes import PassContext, PassManager, parse_pipeline
from compiler.passes.hardware_dependent.lower_tiles_to_loops.boxes import find_box
from compiler.passes.helpers.ranges import ValueRanges

# One [8, 16] tile of a strided 2-D buffer at (r0, c0), bounds-checked in both dims and guarded.
ACCESS = """\
kernel @k(%x: buffer<f32>, %n0: index, %n1: index, %s0: index, %s1: index, %r0: index, \
%c0: index, %g: i1) {{
  %0 = tile.arange() {{size = 8}} : tile<index[8]>
  %1 = tile.expand_dims(%0) {{axis = 1}} : tile<index[8, 1]>
  %2 = tile.arange() {{size = 16}} : tile<index[16]>
  %3 = tile.expand_dims(%2) {{axis = 0}} : tile<index[1, 16]>
  %4 = tile.broadcast({row}) {{shape = [8, 1]}} : tile<index[8, 1]>
  %5 = arith.add(%1, %4) : tile<index[8, 1]>
  %6 = tile.broadcast(%c0) {{shape = [1, 16]}} : tile<index[1, 16]>
  %7 = arith.add(%3, %6) : tile<index[1, 16]>
  %8 = tile.broadcast(%s0) {{shape = [8, 1]}} : tile<index[8, 1]>
  %9 = {rows}
  %10 = tile.broadcast(%s1) {{shape = [1, 16]}} : tile<index[1, 16]>
  %11 = arith.mul(%7, %10) : tile<index[1, 16]>
  %12 = tile.broadcast(%9) {{shape = [8, 16]}} : tile<index[8, 16]>
  %13 = tile.broadcast(%11) {{shape = [8, 16]}} : tile<index[8, 16]>
  %14 = arith.add(%12, %13) : tile<index[8, 16]>
  %15 = tile.broadcast(%n0) {{shape = [8, 1]}} : tile<index[8, 1]>
  %16 = arith.cmp(%5, %15) {{pred = "lt"}} : tile<i1[8, 1]>
  %17 = tile.broadcast(%n1) {{shape = [1, 16]}} : tile<index[1, 16]>
  %18 = arith.cmp({column}, %17) {{pred = "lt"}} : tile<i1[1, 16]>
  %19 = tile.broadcast(%16) {{shape = [8, 16]}} : tile<i1[8, 16]>
  %20 = tile.broadcast(%18) {{shape = [8, 16]}} : tile<i1[8, 16]>
  %21 = arith.and(%19, %20) : tile<i1[8, 16]>
  %22 = tile.broadcast(%g) {{shape = [8, 16]}} : tile<i1[8, 16]>
  %23 = arith.and(%21, %22) : tile<i1[8, 16]>
  %24 = mem.load(%x, %14, %23) : tile<f32[8, 16]>
}}
"""
BOX = {"row": "%r0", "rows": "arith.mul(%5, %8) : tile<index[8, 1]>", "column": "%7"}


def box_of(**changes):
    kernel = parse_kernel(ACCESS.format(**(BOX | changes)))
    load = next(op for op in kernel.walk() if op.name == "mem.load")
    args = {arg.name: arg for arg in kernel.args}
    return find_box(load.operands[1], load.operands[2], ValueRanges(kernel)), args


def test_a_strided_bounds_checked_tile_is_a_box():
    box, args = box_of()
    assert box.bases == ((args["r0"],), (args["c0"],))
    assert box.sizes == (args["n0"], args["n1"])
    assert box.strides == (args["s0"], args["s1"])
    assert box.guards == (args["g"],)


def test_a_unit_stride_the_launch_folded_is_a_dim_of_stride_one():
    """A launch on contiguous tensors makes the last stride the constant 1, and its product
    folds away: the column index itself is that dim's term."""
    kernel = parse_kernel(
        ACCESS.format(**BOX).replace("%13 = tile.broadcast(%11)", "%13 = tile.broadcast(%7)")
    )
    load = next(op for op in kernel.walk() if op.name == "mem.load")
    box = find_box(load.operands[1], load.operands[2], ValueRanges(kernel))
    assert box.strides == (kernel.arg("s0"), None)
    assert box.bases == ((kernel.arg("r0"),), (kernel.arg("c0"),))


@pytest.mark.parametrize(
    "changes",
    [
        {"rows": "arith.idiv(%5, %8) : tile<index[8, 1]>"},  # a flattened view's division
        {"column": "%3"},  # the bound of another index than the one the offsets use
        {"column": "%13"},  # a bound along a tile, not a dim
    ],
    ids=["division", "other-index", "tile-bound"],
)
def test_other_accesses_are_no_boxes(changes):
    assert box_of(**changes)[0] is None


def test_a_base_that_may_be_negative_needs_its_lower_bound():
    """A program id or size is never negative; an index difference may be, and only a mask
    checking `>= 0` makes the box's own lower bound the program's."""
    text = ACCESS.format(**BOX).replace(
        "%4 = tile.broadcast(%r0)", "%m = arith.sub(%r0, %c0) : index\n  %4 = tile.broadcast(%m)"
    )
    kernel = parse_kernel(text)
    load = next(op for op in kernel.walk() if op.name == "mem.load")
    assert find_box(load.operands[1], load.operands[2], ValueRanges(kernel)) is None


def _box_target(make_target, form: dict, **capabilities):
    target = _loop_target(make_target, form)
    dot = {"dtypes": ("f16", "bf16", "tf32"), "multiple": 16, "accumulator": "fragment"}
    target.capabilities.update({"array_dot": dot, "box_copy": True} | capabilities)
    return target


def _counts(work) -> dict[str, int]:
    names = [op.name for op in work.walk()]
    stages = [op.attrs["stages"] for op in work.walk() if "stages" in op.attrs]
    return {"in": names.count("mem.copy_box_in"), "out": names.count("mem.copy_box_out")} | {
        "stages": stages
    }


@pytest.mark.parametrize("form", FORMS[:2], ids=["serial", "threads"])
@pytest.mark.parametrize(
    ("name", "boxes"),
    [
        ("matmul", {"in": 2, "out": 1}),  # the sum stored from the array the accumulator fills
        ("matmul_fp16", {"in": 2, "out": 0}),  # the stored value is a cast, computed per element
        ("bmm", {"in": 2, "out": 1}),  # the batch is one more dim of extent 1
        ("conv2d", {"in": 0, "out": 0}),  # im2col offsets divide: no boxes
    ],
)
def test_tiles_block_ops_take_and_make_move_as_boxes(name, boxes, form, make_target, interpret):
    """With `box_copy`, a load only dots read whose access is a box fills its array with one
    `mem.copy_box_in`, and a store of an array a block-wide op wrote is one `mem.copy_box_out`;
    the interpreter runs them (zero outside the bounds) and the kernel still matches torch. The
    loop feeding the dots is pipelined where the target pipelines and every copy's layout is
    the kernel's arguments."""
    target = _box_target(make_target, form, pipeline_stages=2)
    work = _matches_torch(name, target, interpret)
    assert _counts(work) == boxes | {"stages": [2] if boxes["in"] else []}


@pytest.mark.parametrize("transposed", [False, True])
def test_a_dot_of_a_transposed_tile_reads_the_tile(transposed, make_target, interpret):
    """Attention's `dot(q, trans(k[j]))`: where the target's array dot reads its right operand
    transposed (`array_dot["transposed"]`), the key tile is copied in as a box and the dot takes
    it with `transpose_b`, no transposed copy; without it, the key is an element loop and the
    transpose another. Either way the kernel matches torch in the interpreter."""
    target = _box_target(make_target, FORMS[1])
    target.capabilities["array_dot"] = target.capabilities["array_dot"] | {"transposed": transposed}
    work = _matches_torch("flash_attention", target, interpret)
    dots = [op for op in work.walk() if op.name == "mem.dot"]
    assert [op.attrs.get("transpose_b", False) for op in dots] == [transposed, False]
    assert _counts(work)["in"] == (2 if transposed else 1)  # keys (transposed only) and values
    fills = {op.operands[0] for op in work.walk() if op.name == "mem.write"}
    assert (dots[0].operands[1] in fills) is not transposed


def test_without_the_capability_loads_stay_element_loops(make_target):
    target = _loop_target(make_target, FORMS[1])
    target.capabilities["array_dot"] = {"dtypes": ("tf32",), "multiple": 16}
    assert _counts(_lowered("matmul", target)[3]) == {"in": 0, "out": 0, "stages": []}


def test_the_programs_num_stages_wins(make_target):
    target = _box_target(make_target, FORMS[1], pipeline_stages=2)
    kernel = _lowered("matmul", target)[3]
    for op in kernel.walk():
        op.attrs.pop("stages", None)
    kernel.attrs["num_stages"] = 4
    PassManager(parse_pipeline("ssa.pipeline_loops"), PassContext(target=target)).run(kernel)
    assert _counts(kernel)["stages"] == [4]


LOOP = """\
kernel @k(%a: buffer<f16>, %n: index, %s: index, %c: buffer<f32>) {
  %0 = mem.alloc() {dtype = "f16", scope = "shared", shape = [16, 16], size = 256} : array<f16[256]>
  %1 = mem.alloc() {dtype = "f32", scope = "local", shape = [16, 16], size = 256} : array<f32[256]>
  %2 = arith.constant() {value = 0} : index
  %3 = arith.constant() {value = 1} : index
  %4 = arith.constant() {value = 16} : index
  scf.for(%2, %n, %3) {
  ^(%5: index):
    %6 = arith.mul(%5, %4) : index
    mem.copy_box_in(%a, %2, %6, %n, %n, %s, %3, %0) {shape = [16, 16]}
    mem.dot(%0, %0, %1) {accumulate = true, k = 16, m = 16, n = 16}
    EXTRA
    scf.yield()
  }
}
"""


@pytest.mark.parametrize(
    ("extra", "pipelined"),
    [
        ("", True),
        ("mem.write(%1, %2, %7)", False),  # an element write: not the pass's to overlap
        ("mem.copy_box_out(%1, %c, %2, %2, %n, %n, %s, %3) {shape = [16, 16]}", False),
        ("mem.copy_box_in(%a, %2, %6, %n, %7, %s, %3, %0) {shape = [16, 16]}", False),
    ],
    ids=["copies-and-dots", "element-write", "store", "size-computed-in-the-loop"],
)
def test_only_loops_of_copies_scalars_and_dots_are_pipelined(extra, pipelined, make_target):
    """A pipeliner copies a copy into its prologue with the view it reads: the view's sizes
    and strides must be there before the loop (a size the loop computes is no such copy)."""
    kernel = _loop(extra)
    target = make_target(pipeline_stages=3)
    PassManager(parse_pipeline("ssa.pipeline_loops"), PassContext(target=target)).run(kernel)
    assert _counts(kernel)["stages"] == ([3] if pipelined else [])


def _loop(extra: str, bound: str = "%n"):
    constant = "%7 = arith.constant() {value = 0.0} : f32\n    " if "write" in extra else ""
    if "%7, %s" in extra:
        constant = "%7 = arith.add(%6, %4) : index\n    "
    text = LOOP.replace("EXTRA", constant + extra)
    return parse_kernel(text.replace("scf.for(%2, %n, %3)", f"scf.for(%2, {bound}, %3)"))


@pytest.mark.parametrize(
    ("extra", "stages"),
    [
        ("", 3),  # its copy follows the dot, all the work: 2 stages deep
        ("mem.write(%1, %2, %7)", 2),  # work after the dot: the pipeline 3 deep, past the bound
        ("mem.copy_box_out(%1, %c, %2, %2, %n, %n, %s, %3) {shape = [16, 16]}", None),
    ],
    ids=["copies-last", "work-after-the-dot", "store"],
)
@pytest.mark.parametrize("bound", ["%n", "%4"], ids=["runtime-trips", "constant-trips"])
def test_a_pipeliner_that_orders_other_work_bounds_runtime_loops(extra, stages, bound, make_target):
    """A target whose pipeliner orders the rest of the body (`pipeline_interleaved`) pipelines a
    loop with other work in it, unless it writes global memory; with a trip count known only at
    run time, within `pipeline_runtime_depth`: each copy right after its array's last reader, the
    loop runs `stages` deep, one less where the copies then follow all other work."""
    target = make_target(pipeline_stages=3, pipeline_interleaved=True, pipeline_runtime_depth=2)
    kernel = _loop(extra, bound)
    (entry,) = PassManager(parse_pipeline("ssa.pipeline_loops"), PassContext(target)).run(kernel)
    if bound == "%4" and stages:
        stages = 3  # a constant trip count: the pipeliner unrolls its epilogue, at any depth
    assert _counts(kernel)["stages"] == ([stages] if stages else [])
    bounded = [r for r in entry.remarks if "known only at run time runs in 2 stages, not 3" in r]
    assert len(bounded) == int(stages == 2)
