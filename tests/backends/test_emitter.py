"""The shared emitter: header, names, structure, and errors that name the op and the target."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools

import pytest
import torch
from conftest import load_ir, poisoned

from compiler.backends import EmitError, build_artifact, emit
from compiler.backends.triton import TARGET as TRITON
from compiler.ir import parse_kernel, print_kernel
from compiler.runtime import launch

COPY_WITH_RESERVED_NAMES = """\
kernel @copy(%tl: buffer<f32>, %v0: buffer<f32>, %range: index) attributes {grid = "1"} {
  %0 = tile.arange() {size = 16} : tile<index[16]>
  %1 = tile.broadcast(%range) {shape = [16]} : tile<index[16]>
  %2 = arith.cmp(%0, %1) {pred = "lt"} : tile<i1[16]>
  %3 = mem.load(%tl, %0, %2) : tile<f32[16]>
  mem.store(%v0, %0, %3, %2)
}
"""


def one_op_kernel(op_line: str, result_type: str) -> str:
    return (
        'kernel @k(%x: buffer<f32>) attributes {grid = "1"} {\n'
        "  %0 = tile.arange() {size = 16} : tile<index[16]>\n"
        "  %1 = mem.load(%x, %0) : tile<f32[16]>\n"
        f"  %2 = {op_line} : {result_type}\n"
        "}\n"
    )


def test_header_names_the_ssa_it_came_from():
    kernel = load_ir("masked_add")
    ssa = print_kernel(kernel)
    lines = emit(kernel, TRITON).splitlines()
    assert lines[0] == f"# ssa-sha256: {hashlib.sha256(ssa.encode()).hexdigest()}"
    assert lines[1:3] == ["import triton", "import triton.language as tl"]
    assert lines[5:7] == ["@triton.jit", "def masked_add(x, y, out, n):"]
    assert print_kernel(kernel) == ssa  # emitting leaves the kernel alone


def test_one_line_per_op_in_program_order():
    kernel = load_ir("masked_add")
    body = emit(kernel, TRITON).splitlines()[8:]  # after `n = tl.to_tensor(n).to(tl.int32)`
    assert [line.split(" = ")[0].strip() for line in body[:3]] == ["v0", "v1", "v2"]
    assert len(body) == len(kernel.body.ops)


def test_reserved_argument_names_are_renamed_and_still_run():
    artifact = build_artifact(parse_kernel(COPY_WITH_RESERVED_NAMES), TRITON)
    assert "def copy(tl_, v0, range_):" in artifact.source
    assert artifact.args == [("tl", "buffer"), ("v0", "buffer"), ("range", "index")]
    source, out = torch.randn(16), poisoned(16)
    launch(artifact, {"tl": source, "v0": out, "range": 11})
    torch.testing.assert_close(out[:11], source[:11])
    assert out[11:].isnan().all()


def test_loop_carried_values_are_reassigned_at_once():
    source = emit(load_ir("swap_loop"), TRITON)
    loop = [line.strip() for line in source[source.index("for ") :].splitlines()]
    # yield(%b, %a, %s + %a): the swap reads both old values before either is overwritten.
    assert loop[:8] == [
        "for v16 in range(v11, steps, v12):",
        "v17 = tl.to_tensor(v16).to(tl.int32)",
        "v18 = v15 + v13",
        "v19 = v14",
        "v20 = v13",
        "v13 = v19",
        "v14 = v20",
        "v15 = v18",
    ]


def test_op_without_spelling_names_op_and_target():
    text = one_op_kernel("math.pow(%1, %1)", "tile<f32[16]>")
    with pytest.raises(
        EmitError,
        match=r"op #3 \(math.pow\) in @k has no spelling for target 'triton'; it is not legal",
    ):
        emit(parse_kernel(text), TRITON)


def test_legal_op_missing_from_the_table():
    spelling = {k: v for k, v in TRITON.spelling.items() if k != "math.exp2"}
    target = dataclasses.replace(TRITON, spelling=spelling)
    with pytest.raises(EmitError, match=r"math.exp2.*has no spelling.*it is legal: add it"):
        emit(parse_kernel(one_op_kernel("math.exp2(%1)", "tile<f32[16]>")), target)


def test_operand_dtype_the_target_rejects():
    text = one_op_kernel("math.exp(%1)", "tile<f32[16]>").replace("f32", "f16")
    with pytest.raises(
        EmitError, match="math.exp.*takes no f16 operands for target 'triton'; cast them"
    ):
        emit(parse_kernel(text), TRITON)


def test_unbound_tile_dims():
    text = 'kernel @k() attributes {grid = "1"} {\n'
    text += '  %0 = tile.arange() {size = "B"} : tile<index[B]>\n}\n'
    with pytest.raises(EmitError, match=r"tile.arange.*unbound tile dims \['B'\].*select_schedule"):
        emit(parse_kernel(text), TRITON)


def test_a_spelling_needing_what_the_kernel_lacks_names_it():
    """CUDA C++ spells the thread count with the program's warps, which the schedule pass
    records: a kernel without them is refused by name, not with a KeyError."""
    from compiler.backends.cuda import TARGET as CUDA

    text = 'kernel @k() attributes {grid = "1"} {\n  %0 = index.num_threads() : index\n}\n'
    with pytest.raises(EmitError, match=r"index.num_threads.*spelled with 'num_warps'.*schedule"):
        emit(parse_kernel(text), CUDA)


def test_spelling_comes_only_from_the_target():
    spelling = dict(TRITON.spelling, **{"arith.add": "tl.fma({0}, 1.0, {1})"})
    source = emit(load_ir("masked_add"), dataclasses.replace(TRITON, spelling=spelling))
    assert "v10 = tl.fma(v8, 1.0, v9)" in source


PIPELINED_LOOP = """\
kernel @k(%a: buffer<f16>, %n: index, %s: index) attributes {grid = "1", num_warps = 2} {
  %0 = arith.constant() {value = 1} : index
  scf.grid(%0) {
  ^(%1: index):
    %2 = mem.alloc() {dtype = "f16", scope = "shared", shape = [16, 16], size = 256} : \
array<f16[256]>
    %3 = mem.alloc() {dtype = "f32", operand_dtype = "f16", scope = "fragment", shape = [16, 16], \
size = 256} : array<f32[256]>
    %4 = arith.constant() {value = 0} : index
    %5 = arith.constant() {value = 16} : index
    %6 = arith.mul(%1, %5) : index
    scf.for(%4, %n, %0) {stages = 3} {
    ^(%7: index):
      %8 = arith.mul(%7, %5) : index
      mem.copy_box_in(%a, %6, %8, %n, %n, %s, %0, %2) {shape = [16, 16]}
      mem.dot(%2, %2, %3) {accumulate = true, k = 16, m = 16, n = 16}
      scf.yield()
    }
    scf.yield()
  }
}
"""


def test_a_pipelined_loop_is_spelled_so_with_plain_definitions_inside():
    """TileLang's CUDA form opens a loop with `stages` as `T.Pipelined`, and defines values in it
    plainly (its pipeliner stages statements; a variable would tie them); outside, values in the
    kernel are variables, but for expressions of at most `grid_plain_ops` ops (a box's base,
    `pid * 16`, which TileLang then proves a multiple of 16). The box copy is a `T.copy` of a
    strided view, into the array itself (no view, which the pipeliner would not see through)."""
    from compiler.backends.tilelang import TARGETS

    target = TARGETS["cuda"]
    source = emit(parse_kernel(PIPELINED_LOOP), target)
    lines = [line.strip() for line in source.splitlines()]
    opening = next(i for i, line in enumerate(lines) if "T.Pipelined(" in line)
    assert lines[opening].endswith(", num_stages=3):")
    assert lines[opening - 1].endswith(" = v1 * v5")  # %6, outside: one op, plain
    variables = dataclasses.replace(
        target, syntax=dataclasses.replace(target.syntax, grid_plain_ops=0)
    )
    outside = emit(parse_kernel(PIPELINED_LOOP), variables).splitlines()
    assert any("= T.alloc_var(T.int32, init=v1 * v5)" in line for line in outside)
    assert "alloc_var" not in lines[opening + 1] and " * " in lines[opening + 1]  # %8, inside
    assert lines[opening + 2].startswith("T.copy(T.StridedTensor((n, n,), (s, ")
    assert lines[opening + 2].endswith('ntc_view(v2, [16, 16]), annotations={"disable_tma": True})')
    unpipelined = dataclasses.replace(
        target, syntax=dataclasses.replace(target.syntax, pipelined_for_open="")
    )
    plain = emit(parse_kernel(PIPELINED_LOOP), unpipelined)
    assert "T.Pipelined(" not in plain and "in T.serial(" in plain


NEST = """\
kernel @k(%a: buffer<f32>, %b: buffer<f32>) attributes {grid = "1", num_warps = 1} {
  %0 = arith.constant() {value = 1} : index
  scf.grid(%0) {
  ^(%1: index):
    %2 = arith.constant() {value = 24} : index
    scf.parallel(%2) {shape = [2, 3, 4]} {
    ^(%3: index):
      %4 = mem.load(%a, %3) : f32
      mem.store(%b, %3, %4)
      scf.yield()
    }
    scf.yield()
  }
}
"""


def test_a_parallel_loop_over_a_tile_is_a_nest_of_its_dims_where_the_syntax_has_one():
    """TileLang's CUDA form runs a loop with a tile `shape` as `T.Parallel` over the tile's dims,
    the flat position defined from them row-major (plain, for TileLang's analysis to read
    through): each element is copied exactly once. A syntax without `parallel_nest_open` keeps
    the flat loop."""
    from compiler.backends.tilelang import TARGETS

    target = TARGETS["cuda"]
    lines = [line.strip() for line in emit(parse_kernel(NEST), target).splitlines()]
    opening = next(i for i, line in enumerate(lines) if "T.Parallel(" in line)
    i, j, k = lines[opening].removeprefix("for ").split(" in ")[0].split(", ")
    assert lines[opening].endswith(" in T.Parallel(2, 3, 4):")
    body = {}
    for line in lines[opening + 1 : opening + 5]:
        name, expr = line.split(" = ")
        body[name] = expr
    positions = set()
    for point in itertools.product(range(2), range(3), range(4)):
        env = dict(zip((i, j, k), point, strict=True))
        for name, expr in body.items():
            env[name] = eval(expr, {}, env)  # the plain index arithmetic, in Python
        positions.add(env[name])
    assert positions == set(range(24))
    # the load and the store are at the last definition
    assert f"a[{name}]" in lines[opening + 5] and lines[opening + 6].startswith(f"b[{name}] = ")
    flat = dataclasses.replace(
        target, syntax=dataclasses.replace(target.syntax, parallel_nest_open="")
    )
    assert any(
        line.strip().endswith("in T.Parallel(v2):")
        for line in emit(parse_kernel(NEST), flat).splitlines()
    )
