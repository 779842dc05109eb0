"""Tiles to loops keeps what suite kernels compute: each kernel's frontend IR goes through the
default pipeline for a stand-in target without tile values, in every loop form (serial or
thread-strided parallel loops, program ids from the launch or from `scf.grid`), runs in the numpy
reference interpreter on poisoned outputs, and must match torch."""

from __future__ import annotations

import pytest
import torch

from compiler.ir import Block, Builder, ScalarType, Value, parse_kernel, print_kernel
from compiler.ir.types import TileType
from compiler.passes import PassContext, PassManager, default_pipeline, parse_pipeline
from compiler.passes.hardware_dependent.lower_tiles_to_loops.tile_elements import Elements, strides
from compiler.passes.helpers.array_dot import takes, warps_split
from compiler.runtime.grid import evaluate_grid
from compiler.suite import SUITE
from compiler.suite.checking import build

# Quick in a Python interpreter (element by element); the dot-based kernels run in every backend's
# matrix test instead.
KERNELS = ["vector_add", "fused_elementwise", "sum_1d", "softmax", "rms_norm", "rotary_embedding"]
KERNELS += ["max_pool2d"]
FORMS = [
    {"parallel": "serial", "program_ids": "loop", "unit_step_loops": True},
    {"parallel": "threads", "program_ids": "launch"},
    {"parallel": "threads", "program_ids": "launch", "private": True},  # register micro-tiles
]


def _loop_target(make_target, form: dict):
    form = dict(form)
    private = form.pop("private", False)
    target = make_target(value_semantics=False, tile_cap=16, **form)
    target.memory_scopes["tile"] = "local"
    if private:
        target.memory_scopes["private"] = "private"
    return target


def _run(kernel_ir, bindings: dict, grid: int, interpret) -> None:
    args = {}
    for arg in kernel_ir.args:
        value = bindings[arg.name]
        args[arg.name] = value.view(-1).numpy() if isinstance(value, torch.Tensor) else value
    interpret(kernel_ir, args, grid=grid)


def _lowered(name: str, target):
    """Suite kernel `name`'s frontend IR through the default pipeline for `target`."""
    kernel = SUITE[name]
    handle = build(kernel, "triton")
    args = kernel.make_args(0)
    artifact = handle.compile(*args, **kernel.call_kwargs)
    work = parse_kernel(artifact.initial_ssa)
    PassManager(parse_pipeline(default_pipeline("triton")), PassContext(target=target)).run(work)
    return kernel, handle, args, work


def _matches_torch(name: str, target, interpret):
    """The lowered kernel, after running it in the interpreter and comparing with torch."""
    kernel, handle, args, work = _lowered(name, target)
    expected = kernel.reference(args)
    bindings = handle.bindings(*args, **kernel.call_kwargs)
    numbers = {k: v for k, v in bindings.items() if isinstance(v, int)}
    looped = target.capability("program_ids") == "loop"
    grid = (
        1 if looped else evaluate_grid(work.attrs["grid"], dict(work.attrs["schedule"]) | numbers)
    )
    _run(work, bindings, grid, interpret)
    for index, want in zip(kernel.outputs, expected, strict=True):
        got = args[index].double()
        assert torch.allclose(got, want.double(), rtol=kernel.rtol, atol=kernel.atol), name
    return work


def _form_id(form: dict) -> str:
    return f"{form['parallel']}-{form['program_ids']}" + ("-private" * form.get("private", False))


@pytest.mark.parametrize("form", FORMS, ids=_form_id)
@pytest.mark.parametrize("name", KERNELS)
def test_suite_kernel_in_loops_matches_torch(name, form, make_target, interpret):
    work = _matches_torch(name, _loop_target(make_target, form), interpret)
    assert not any(isinstance(v.type, TileType) for op in work.walk() for v in op.results)
    assert ("scf.grid" in print_kernel(work)) == (form["program_ids"] == "loop")
    if not form.get("private"):
        assert all(op.attrs.get("scope") != "private" for op in work.walk())


def test_private_arrays_take_their_loops_barriers_away(make_target):
    """vector_add's two loads fill private arrays: those loops run in rounds with no barrier,
    which only the store loop keeps; without the scope every loop has its barriers."""

    def barriers(form: dict) -> tuple[int, int]:
        work = _lowered("vector_add", _loop_target(make_target, form))[3]
        return [op.name for op in work.walk()].count("mem.barrier"), sum(
            op.name == "scf.if" for op in work.walk()
        )

    assert barriers(FORMS[1]) == (6, 0)  # before and after each of the two fills and the store
    assert barriers(FORMS[2]) == (2, 3)  # around the store only; each loop's rounds guarded


@pytest.mark.parametrize(
    ("accumulator", "elements"),
    [
        (None, None),  # the sum is a plain array
        ("fragment", None),
        ("fragment", "accumulator_elements"),
        ("fragment", "accumulator_slots"),
    ],
)
@pytest.mark.parametrize("name", ["matmul_fp16", "bmm_fp16", "flash_attention"])
def test_a_dot_the_target_takes_whole_is_one_array_dot(
    name, accumulator, elements, make_target, interpret
):
    """f16 operands in 16 x 16 blocks: each dot is one block-wide `mem.dot` on the operands'
    arrays (the interpreter runs it), summed in an array of the `accumulator` scope where the
    target has one, and the kernel still matches torch. A dot a loop adds to the tile it carries
    (matmul's `accumulator += dot(...)`) sums into that tile in place: copied into the accumulator
    scope before the loop and out after it, not once per dot, or, where the target addresses
    the accumulator's elements, filled and read there with no copy at all. So does attention's
    second dot, whose sum the loop rescales first (`acc * alpha[:, None] + dot(p, v)`), where the
    target reads and writes the accumulator's elements (no accumulator scope, or
    `accumulator_elements`) or each thread's own (`accumulator_slots`: the rescale walks the
    slots, and the sum is copied in and out around the loop); its first dot starts from zero
    and is copied out each time."""
    target = _loop_target(make_target, FORMS[1])
    capability = {"dtypes": ("f16", "bf16"), "multiple": 16}
    capability |= {"accumulator": accumulator} if accumulator else {}
    capability |= {elements: True} if elements else {}
    target.capabilities["array_dot"] = capability
    work = _matches_torch(name, target, interpret)
    dots = [op for op in work.walk() if op.name == "mem.dot"]
    assert dots and all(op.attrs["m"] % 16 == op.attrs["n"] % 16 == 0 for op in dots)
    in_place = [op for op in dots if op.attrs["accumulate"]]
    rescaled = accumulator is None or elements
    assert len(in_place) == (len(dots) if name != "flash_attention" else int(bool(rescaled)))
    copies = [op for op in work.walk() if op.name == "mem.copy"]
    homed = elements == "accumulator_elements"
    expected = (0 if homed else 2 * len(in_place)) + len(dots) - len(in_place)
    assert len(copies) == (expected if accumulator else 0)
    walks = [op for op in work.walk() if op.name == "mem.owned_position"]
    assert len(walks) == (name == "flash_attention" and elements == "accumulator_slots")
    for dot in dots:
        scope = dot.operands[2].owner.attrs["scope"]
        assert scope == (accumulator or "local")
    loops = [op for op in work.walk() if op.name == "scf.for"]
    for dot in in_place:  # summed in the loop, copied in the kernel body around it
        assert any(dot in loop.walk() for loop in loops)
        copied = [op.operands[0] for loop in loops for op in loop.walk() if op.name == "mem.copy"]
        assert dot.operands[2] not in copied


def test_a_dot_operand_computed_before_its_loop_is_filled_once(make_target, interpret):
    """Attention scales the query once, before its loop over keys; the loop's first dot takes
    that tile whole, so its array is filled before the loop and nothing in the loop writes it
    (recomputing it there would cost an elementwise pass per block of keys)."""
    target = _loop_target(make_target, FORMS[1])
    target.capabilities["array_dot"] = {"dtypes": ("f16", "bf16"), "multiple": 16}
    work = _matches_torch("flash_attention", target, interpret)
    (loop,) = [op for op in work.walk() if op.name == "scf.for" and "mem.dot" in _names(op)]
    written = {op.operands[0] for op in loop.walk() if op.name == "mem.write"}
    dots = [op for op in loop.walk() if op.name == "mem.dot"]
    query = dots[0].operands[0]
    assert query not in written
    assert any(op.name == "mem.write" and op.operands[0] is query for op in work.walk())
    assert all(v in written for dot in dots for v in dot.operands[:2] if v is not query)


def _names(op) -> list[str]:
    return [nested.name for nested in op.walk()]


@pytest.mark.parametrize("name", ["softmax", "rms_norm", "sum_1d", "max_pool2d"])
def test_a_reduction_the_target_takes_is_one_array_reduce(name, make_target, interpret):
    """Where the target reduces arrays of the dtype (`array_reduce`), each reduction along more
    than one element is one block-wide `mem.reduce` (the interpreter runs it) instead of a loop
    per result element, and the kernel still matches torch."""
    target = _loop_target(make_target, FORMS[1])
    target.capabilities["array_reduce"] = {"dtypes": ("f32",)}
    work = _matches_torch(name, target, interpret)
    reduces = [op for op in work.walk() if op.name == "mem.reduce"]
    assert reduces and all(op.attrs["shape"][1] > 1 for op in reduces)
    plain = _lowered(name, _loop_target(make_target, FORMS[1]))[3]
    serial = [sum(op.name == "scf.for" for op in k.walk()) for k in (work, plain)]
    assert serial[0] <= serial[1] - len(reduces)  # each took the place of a serial loop


@pytest.mark.parametrize(
    ("name", "capability"),
    [
        ("matmul", {"dtypes": ("f16",), "multiple": 16}),  # f32 operands
        ("matmul_fp16", {"dtypes": ("f16",), "multiple": 32}),  # 16-wide blocks
        ("matmul_fp16", None),  # no such routine
    ],
)
def test_other_dots_stay_loops(name, capability, make_target):
    target = _loop_target(make_target, FORMS[1])
    if capability:
        target.capabilities["array_dot"] = capability
    work = _lowered(name, target)[3]
    assert not any(op.name == "mem.dot" for op in work.walk())


def test_value_semantics_targets_keep_their_tiles(make_target):
    kernel = SUITE["vector_add"]
    artifact = build(kernel, "triton").compile(*kernel.make_args(0))
    work = parse_kernel(artifact.initial_ssa)
    context = PassContext(target=make_target())
    PassManager(parse_pipeline(default_pipeline("triton")), context).run(work)
    text = print_kernel(work)
    assert "tile<" in text and "mem.alloc" not in text and "scf.parallel" not in text


def test_strides_are_row_major():
    assert strides((3, 4, 5)) == (20, 5, 1)


def test_an_array_read_at_the_loops_own_index_is_read_at_its_position():
    """A loop over [4, 8] elements reading an array of that shape at its own index reads at the
    loop's position itself, no i * 8 + j: the same expression its write there uses (TileLang
    lays fragments out only where every access to one matches)."""
    elements = Elements("test", {}, {})
    b = Builder(Block())
    position = Value(ScalarType("index"))
    index = elements.delinearize(b, position, (4, 8))
    assert elements.linear(b, index, (4, 8)) is position
    other = elements.linear(b, index, (8, 4))  # another shape: computed
    assert other is not position and other.owner.name == "arith.add"


DOT = """kernel @d(%x: buffer<f16>) {
  %0 = tile.arange() {size = 16} : tile<index[16]>
  %1 = tile.expand_dims(%0) {axis = 1} : tile<index[16, 1]>
  %2 = tile.broadcast(%1) {shape = [16, 32]} : tile<index[16, 32]>
  %3 = mem.load(%x, %2) : tile<f16[16, 32]>
  %4 = tile.trans(%3) : tile<f16[32, 16]>
  %5 = linalg.dot(%4, %3) {dtype = "f32"} : tile<f32[32, 32]>
}"""


@pytest.mark.parametrize(
    ("capability", "warps", "split"),
    [
        ({"warp_tile": (16, 8)}, 8, True),  # 2 row groups x 4 column groups of 16 x 8
        ({"warp_tile": (16, 8)}, 16, False),  # 32 x 32 has only 8 blocks of 16 x 8
        ({"warp_tile": (32, 32)}, 2, False),
        ({}, 16, True),  # no warp tile: any warps share the dot
    ],
)
def test_warps_split_a_dot_into_whole_warp_tiles(capability, warps, split):
    dot = next(op for op in parse_kernel(DOT).walk() if op.name == "linalg.dot")
    assert takes({"dtypes": ("f16",), "multiple": 16}, dot)
    assert not takes({"dtypes": ("bf16",), "multiple": 16}, dot)
    assert not takes({"dtypes": ("f16",), "multiple": 64}, dot)
    assert warps_split(capability, dot, warps) == split


RANKS = """kernel @ranks(%x: buffer<f32>, %out: buffer<i32>) {
  %0 = tile.arange() {size = 64} : tile<index[64]>
  %1 = mem.load(%x, %0) : tile<f32[64]>
  %2 = tile.expand_dims(%1) {axis = 1} : tile<f32[64, 1]>
  %3 = tile.broadcast(%2) {shape = [64, 64]} : tile<f32[64, 64]>
  %4 = tile.expand_dims(%1) {axis = 0} : tile<f32[1, 64]>
  %5 = tile.broadcast(%4) {shape = [64, 64]} : tile<f32[64, 64]>
  %6 = arith.cmp(%5, %3) {pred = "lt"} : tile<i1[64, 64]>
  %7 = arith.cast(%6) {dtype = "i32"} : tile<i32[64, 64]>
  %8 = reduce.sum(%7) {axis = 1} : tile<i32[64]>
  mem.store(%out, %0, %8)
}"""


@pytest.mark.parametrize(("max_elements", "whole"), [(4096, True), (1024, False)])
def test_a_reduction_fills_an_array_only_within_max_elements(
    max_elements, whole, make_target, interpret
):
    """Each element's rank counts the smaller ones: a sum over a broadcast [64, 64] comparison.
    Within `max_elements` the comparison fills an array for one `mem.reduce`; past it, the loop
    form computes each comparison where the sum needs it and holds no [64, 64] array (a [1024,
    1024] one overflowed the CPU shim's stack). Both rank right."""
    target = _loop_target(make_target, FORMS[1])
    target.capabilities["array_reduce"] = {"dtypes": ("i32",), "max_elements": max_elements}
    work = parse_kernel(RANKS)
    passes = parse_pipeline("ssa.lower_tiles_to_loops,ssa.lower_parallel")
    PassManager(passes, PassContext(target=target)).run(work)
    sizes = [op.attrs["size"] for op in work.walk() if op.name == "mem.alloc"]
    assert (64 * 64 in sizes) == whole
    assert any(op.name == "mem.reduce" for op in work.walk()) == whole
    x = torch.randperm(64, generator=torch.Generator().manual_seed(max_elements)).float()
    out = torch.full((64,), -1, dtype=torch.int32)
    _run(work, {"x": x, "out": out}, 1, interpret)
    assert torch.equal(out, x.argsort().argsort().int())


def _math_ops(work) -> list[str]:
    return [op.name for op in work.walk() if op.name.startswith("math.")]


@pytest.mark.parametrize("form", FORMS, ids=_form_id)
def test_a_costly_tile_read_more_than_once_is_computed_once(form, make_target, interpret):
    """Softmax's numerator `exp(x - max)` is both summed and divided: held, one exp per element
    (the sum's block-wide reduce reads its array, a reshape of it being the same array), not one
    in the sum's loop and another in the store's. Attention's row scale `exp2(max_old - max_new)`
    spreads across its row: held per row, not recomputed at each of its row's positions; its
    other exp2, of every score, runs once for both the dot and the row sum, where the target holds
    tiles of that size. Both match torch."""
    target = _loop_target(make_target, form)
    target.capabilities["array_reduce"] = {"dtypes": ("f32",)}
    softmax = _matches_torch("softmax", target, interpret)
    assert _math_ops(softmax) == ["math.exp"]
    assert sum(op.name == "mem.alloc" for op in softmax.walk()) == 4  # 2 tiles, 2 sums
    target.capabilities["array_dot"] = {"dtypes": ("f16", "bf16"), "multiple": 16}
    attention = _matches_torch("flash_attention", target, interpret)
    assert _math_ops(attention) == ["math.exp2", "math.exp2"]
    # Within `held_elements` only: the row scale (16) is held, the [16, 16] scores are not.
    target.capabilities["held_elements"] = 16
    attention = _matches_torch("flash_attention", target, interpret)
    assert _math_ops(attention) == ["math.exp2"] * 3
