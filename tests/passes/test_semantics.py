"""Passes keep what a kernel computes: run it before and after in a numpy reference interpreter.

Outputs are poisoned with NaN first, so an element the transformed kernel fails to write shows up.
"""

from __future__ import annotations

import numpy as np
import pytest

from compiler.ir import parse_kernel
from compiler.ir.registry import OPS
from compiler.ir.types import TileType
from compiler.passes import PassContext, PassManager, parse_pipeline
from compiler.passes.helpers.decompositions import DECOMPOSITIONS

ROW_SUM = """\
kernel @row_sum(%x: buffer<f32>, %y: buffer<f32>, %m: index, %n: index, %stride: index) \
attributes {meta = [["BLOCK_SIZE_0", 1, 64]]} {
  %pid = index.program_id() {axis = 0} : index
  %bs = index.meta() {name = "BLOCK_SIZE_0"} : index
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %f = arith.constant() {value = 0.0} : tile<f32[BLOCK_SIZE_0]>
  %acc, %dead = scf.for(%zero, %n, %one, %f, %f) : \
tile<f32[BLOCK_SIZE_0]>, tile<f32[BLOCK_SIZE_0]> {
  ^(%k: index, %a: tile<f32[BLOCK_SIZE_0]>, %d: tile<f32[BLOCK_SIZE_0]>):
    %start = arith.mul(%pid, %bs) : index
    %start1 = arith.add(%start, %one) : index
    %start2 = arith.sub(%start1, %one) : index
    %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
    %sb = tile.broadcast(%start2) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
    %rows = arith.add(%sb, %r) : tile<index[BLOCK_SIZE_0]>
    %strides = tile.broadcast(%stride) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
    %rowoff = arith.mul(%rows, %strides) : tile<index[BLOCK_SIZE_0]>
    %zk = arith.mul(%zero, %k) : index
    %kk = arith.add(%k, %zk) : index
    %kb = tile.broadcast(%kk) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
    %off = arith.add(%rowoff, %kb) : tile<index[BLOCK_SIZE_0]>
    %mb = tile.broadcast(%m) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
    %rowmask = arith.cmp(%rows, %mb) {pred = "lt"} : tile<i1[BLOCK_SIZE_0]>
    %kmask = arith.cmp(%k, %n) {pred = "lt"} : i1
    %kmaskb = tile.broadcast(%kmask) {shape = ["BLOCK_SIZE_0"]} : tile<i1[BLOCK_SIZE_0]>
    %mask = arith.and(%rowmask, %kmaskb) : tile<i1[BLOCK_SIZE_0]>
    %v = mem.load(%x, %off, %mask) : tile<f32[BLOCK_SIZE_0]>
    %s = arith.add(%a, %v) : tile<f32[BLOCK_SIZE_0]>
    scf.yield(%s, %d)
  }
  %ostart = arith.mul(%pid, %bs) : index
  %or = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  %osb = tile.broadcast(%ostart) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
  %orows = arith.add(%osb, %or) : tile<index[BLOCK_SIZE_0]>
  %omb = tile.broadcast(%m) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
  %orowmask = arith.cmp(%orows, %omb) {pred = "lt"} : tile<i1[BLOCK_SIZE_0]>
  mem.store(%y, %orows, %acc, %orowmask)
}
"""

UNARY = """\
kernel @unary(%x: buffer<f32>, %y: buffer<f32>, %z: buffer<f32>) {{
  %i = tile.arange() {{size = 16}} : tile<index[16]>
  %a = mem.load(%x, %i) : tile<f32[16]>
  %b = mem.load(%y, %i) : tile<f32[16]>
  %r = {op}({operands}) : tile<{result}[16]>
  %s = arith.cast(%r) {{dtype = "f32"}} : tile<f32[16]>
  mem.store(%z, %i, %s)
}}
"""

DOT = """\
kernel @dot(%a: buffer<f16>, %b: buffer<f16>, %c: buffer<f32>) {
  %r = tile.arange() {size = 8} : tile<index[8]>
  %k = tile.arange() {size = 4} : tile<index[4]>
  %rc = tile.expand_dims(%r) {axis = 1} : tile<index[8, 1]>
  %rr = tile.expand_dims(%r) {axis = 0} : tile<index[1, 8]>
  %kc = tile.expand_dims(%k) {axis = 1} : tile<index[4, 1]>
  %kr = tile.expand_dims(%k) {axis = 0} : tile<index[1, 4]>
  %four = arith.constant() {value = 4} : tile<index[8, 1]>
  %eight = arith.constant() {value = 8} : tile<index[4, 1]>
  %eight2 = arith.constant() {value = 8} : tile<index[8, 1]>
  %ra = arith.mul(%rc, %four) : tile<index[8, 1]>
  %ra2 = tile.broadcast(%ra) {shape = [8, 4]} : tile<index[8, 4]>
  %ka = tile.broadcast(%kr) {shape = [8, 4]} : tile<index[8, 4]>
  %ia = arith.add(%ra2, %ka) : tile<index[8, 4]>
  %kb = arith.mul(%kc, %eight) : tile<index[4, 1]>
  %kb2 = tile.broadcast(%kb) {shape = [4, 8]} : tile<index[4, 8]>
  %cb = tile.broadcast(%rr) {shape = [4, 8]} : tile<index[4, 8]>
  %ib = arith.add(%kb2, %cb) : tile<index[4, 8]>
  %rcc = arith.mul(%rc, %eight2) : tile<index[8, 1]>
  %rcc2 = tile.broadcast(%rcc) {shape = [8, 8]} : tile<index[8, 8]>
  %cc = tile.broadcast(%rr) {shape = [8, 8]} : tile<index[8, 8]>
  %ic = arith.add(%rcc2, %cc) : tile<index[8, 8]>
  %x = mem.load(%a, %ia) : tile<f16[8, 4]>
  %y = mem.load(%b, %ib) : tile<f16[4, 8]>
  %d = linalg.dot(%x, %y) {dtype = "f32"} : tile<f32[8, 8]>
  mem.store(%c, %ic, %d)
}
"""

POSITIVE_ONLY = ("math.rsqrt", "math.log", "math.log2", "math.pow")
UNARY_OPS = sorted(name for name in DECOMPOSITIONS if OPS[name].dialect in ("math", "arith"))


def _compare(interpret, text, pipeline, target, args, outputs, meta=None, grid=1):
    """Run `text` before and after `pipeline` on copies of `args`; the outputs must agree."""
    results = []
    for transform in (False, True):
        kernel = parse_kernel(text)
        if transform:
            PassManager(parse_pipeline(pipeline), PassContext(target)).run(kernel)
        values = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
        for name in outputs:
            values[name][:] = np.nan
        interpret(kernel, values, meta, grid)
        results.append(values)
    for name in outputs:
        assert not np.isnan(results[1][name]).any(), f"{name} has unwritten elements"
        np.testing.assert_allclose(results[1][name], results[0][name], rtol=1e-5, atol=1e-6)
    return results[1]


def _row_sum_args(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    m, n, stride = 37, 5, 6
    x = rng.standard_normal(m * stride).astype(np.float32)
    return {"x": x, "y": np.zeros(m, np.float32), "m": m, "n": n, "stride": stride}


def test_canonicalize_keeps_a_masked_loop_kernel(make_target, interpret):
    args = _row_sum_args(0)
    meta = {"BLOCK_SIZE_0": 8}
    out = _compare(interpret, ROW_SUM, "ssa.canonicalize", make_target(), args, ["y"], meta, 5)
    expected = args["x"].reshape(37, 6)[:, :5].sum(axis=1)
    np.testing.assert_allclose(out["y"], expected, rtol=1e-5)


def test_the_default_passes_keep_it_too(make_target, interpret):
    pipeline = (
        "ssa.canonicalize,ssa.analyze_effects,ssa.select_schedule{BLOCK_SIZE_0=8},"
        "ssa.decompose_linalg,ssa.lower_memory_scopes,ssa.lower_backend_intrinsics"
    )
    target = make_target(("arith.and", "arith.max"))
    meta = {"BLOCK_SIZE_0": 8}
    _compare(interpret, ROW_SUM, pipeline, target, _row_sum_args(1), ["y"], meta, 5)


@pytest.mark.parametrize("name", UNARY_OPS)
def test_each_decomposition_computes_what_the_op_does(name, make_target, interpret):
    operands = "%a, %b" if name in ("math.pow", "arith.max", "arith.min") else "%a"
    result = OPS[name].infer([TileType("f32", (16,))] * operands.count("%"), {})[0].dtype
    text = UNARY.format(op=name, operands=operands, result=result)
    rng = np.random.default_rng(2)
    low = 0.25 if name in POSITIVE_ONLY else -2.0
    args = {k: rng.uniform(low, 2.0, 16).astype(np.float32) for k in ("x", "y", "z")}
    target = make_target((name,))
    _compare(interpret, text, "ssa.lower_backend_intrinsics", target, args, ["z"])
    kernel = parse_kernel(text)
    PassManager(parse_pipeline("ssa.lower_backend_intrinsics"), PassContext(target)).run(kernel)
    created = set(kernel.op_counts()) - set(parse_kernel(text).op_counts())
    assert name not in kernel.op_counts() and created <= DECOMPOSITIONS[name].produces


def test_decomposed_dot_matches_matmul(make_target, interpret):
    rng = np.random.default_rng(3)
    args = {
        "a": rng.standard_normal(32).astype(np.float16),
        "b": rng.standard_normal(32).astype(np.float16),
        "c": np.zeros(64, np.float32),
    }
    target = make_target(("linalg.dot",))
    out = _compare(interpret, DOT, "ssa.decompose_linalg", target, args, ["c"])
    expected = args["a"].reshape(8, 4).astype(np.float32) @ args["b"].reshape(4, 8)
    np.testing.assert_allclose(out["c"].reshape(8, 8), expected, rtol=1e-5, atol=1e-6)


def test_widening_computes_what_the_narrow_op_does(make_target, interpret):
    text = UNARY.format(op="math.exp", operands="%a", result="f32").replace("f32", "f16")
    target = make_target(operand_dtypes={"math.exp": frozenset({"f32"})})
    rng = np.random.default_rng(4)
    args = {k: rng.uniform(-2.0, 2.0, 16).astype(np.float16) for k in ("x", "y", "z")}
    _compare(interpret, text, "ssa.lower_backend_intrinsics", target, args, ["z"])


AXIS = """\
kernel @axis(%x: buffer<i64>, %i: buffer<i32>, %y: buffer<f64>) {{
  %r = tile.arange() {{size = 4}} : tile<index[4]>
  %c = tile.arange() {{size = 8}} : tile<index[8]>
  %rc = tile.expand_dims(%r) {{axis = 1}} : tile<index[4, 1]>
  %cr = tile.expand_dims(%c) {{axis = 0}} : tile<index[1, 8]>
  %eight = arith.constant() {{value = 8}} : tile<index[4, 1]>
  %rows = arith.mul(%rc, %eight) : tile<index[4, 1]>
  %rb = tile.broadcast(%rows) {{shape = [4, 8]}} : tile<index[4, 8]>
  %cb = tile.broadcast(%cr) {{shape = [4, 8]}} : tile<index[4, 8]>
  %at = arith.add(%rb, %cb) : tile<index[4, 8]>
  %a = mem.load(%x, %at) : tile<i64[4, 8]>
  %k = mem.load(%i, %at) : tile<i32[4, 8]>
  %b = {op} : tile<i64[4, 8]>
  %f = arith.cast(%b) {{dtype = "f64"}} : tile<f64[4, 8]>
  mem.store(%y, %at, %f)
}}
"""
AXIS_OPS = [
    "tile.sort(%a) {axis = 1, descending = false}",
    "tile.sort(%a) {axis = 0, descending = true}",
    "tile.gather(%a, %k) {axis = 1}",
    "tile.gather(%a, %k) {axis = 0}",
    "scan.sum(%a) {axis = 1, reverse = false}",
    "scan.sum(%a) {axis = 0, reverse = true}",
]


@pytest.mark.parametrize("op", AXIS_OPS)
def test_axis_decompositions_compute_what_the_op_does(op, make_target, interpret):
    """Sorts with repeated keys, gathers with indices in range of either axis, running sums."""
    rng = np.random.default_rng(len(op))
    axis = 1 if "axis = 1" in op else 0
    args = {
        "x": rng.integers(-5, 5, 32).astype(np.int64),
        "i": rng.integers(0, (4, 8)[axis], 32).astype(np.int32),
        "y": np.zeros(32, np.float64),
    }
    name = op.split("(")[0]
    _compare(
        interpret,
        AXIS.format(op=op),
        "ssa.lower_backend_intrinsics",
        make_target((name,)),
        args,
        ["y"],
    )
    kernel = parse_kernel(AXIS.format(op=op))
    PassManager(
        parse_pipeline("ssa.lower_backend_intrinsics"), PassContext(make_target((name,)))
    ).run(kernel)
    assert name not in kernel.op_counts()


def test_atomic_updates_see_each_other(interpret):
    """Elements that update one address all count, in order: the old values are 0, 1, 2, 3."""
    text = """\
kernel @tickets(%counter: buffer<i32>, %out: buffer<i32>) {
  %i = tile.arange() {size = 4} : tile<index[4]>
  %zero = arith.constant() {value = 0} : tile<index[4]>
  %one = arith.constant() {value = 1} : tile<i32[4]>
  %old = mem.atomic(%counter, %zero, %one) {kind = "add"} : tile<i32[4]>
  mem.store(%out, %i, %old)
}
"""
    args = {"counter": np.zeros(1, np.int32), "out": np.full(4, -1, np.int32)}
    interpret(parse_kernel(text), args, None, 1)
    assert args["counter"][0] == 4 and list(args["out"]) == [0, 1, 2, 3]


def test_compare_and_swap_replaces_only_what_equals_the_compared_value(interpret):
    """Four elements try to swap 7 for their own value at one address: the first finds 7 and
    swaps, the others find its value and leave it."""
    text = """\
kernel @claim(%slot: buffer<i32>, %out: buffer<i32>) {
  %i = tile.arange() {size = 4} : tile<index[4]>
  %zero = arith.constant() {value = 0} : tile<index[4]>
  %mine = arith.cast(%i) : tile<i32[4]>
  %free = arith.constant() {value = 7} : tile<i32[4]>
  %old = mem.atomic(%slot, %zero, %mine, %free) {kind = "cas"} : tile<i32[4]>
  mem.store(%out, %i, %old)
}
"""
    args = {"slot": np.full(1, 7, np.int32), "out": np.full(4, -1, np.int32)}
    interpret(parse_kernel(text), args, None, 1)
    assert args["slot"][0] == 0 and list(args["out"]) == [7, 0, 0, 0]
