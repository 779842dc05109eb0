"""Which loop updates `acc = rescale(acc) + dot(a, b)` a dot may add to in place."""

from __future__ import annotations

import pytest

from compiler.ir import parse_kernel
from compiler.passes.hardware_dependent.lower_tiles_to_loops.rescaled_sums import rescales

LOOP = """\
kernel @k(%n: index) {
  %0 = arith.constant() {value = 0} : index
  %1 = arith.constant() {value = 1} : index
  %2 = arith.constant() {value = 0.0} : tile<f32[16, 16]>
  %3 = arith.constant() {value = 1.0} : tile<f16[16, 16]>
  %4 = scf.for(%0, %n, %1, %2) : tile<f32[16, 16]> {
  ^(%5: index, %acc: tile<f32[16, 16]>):
    BEFORE
    %dot = linalg.dot(%3, %3) {dtype = "f32"} : tile<f32[16, 16]>
    AFTER
    %next = arith.add(%rescaled, %dot) : tile<f32[16, 16]>
    scf.yield(%next)
  }
}
"""
ROW_SCALE = """%m = reduce.max(%3) {axis = 1} : tile<f16[16]>
    %e = tile.expand_dims(%m) {axis = 1} : tile<f16[16, 1]>
    %b = tile.broadcast(%e) {shape = [16, 16]} : tile<f16[16, 16]>
    %alpha = arith.cast(%b) {dtype = "f32"} : tile<f32[16, 16]>"""


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # attention's `acc * alpha[:, None]`, the row scale ready before the dot
        (ROW_SCALE, "%rescaled = arith.mul(%acc, %alpha) : tile<f32[16, 16]>", True),
        # the elementwise chain itself may follow the dot: it is computed where it is used
        (
            ROW_SCALE,
            "%x = math.exp2(%acc) : tile<f32[16, 16]>\n"
            "    %rescaled = arith.mul(%x, %alpha) : tile<f32[16, 16]>",
            True,
        ),
        # the row scale's reduction comes after the dot: not ready where the rescale goes
        ("", ROW_SCALE + "\n    %rescaled = arith.mul(%acc, %alpha) : tile<f32[16, 16]>", False),
        # a transpose reads other elements of the sum than the one it overwrites
        (
            "",
            "%t = tile.trans(%acc) {perm = [1, 0]} : tile<f32[16, 16]>\n"
            "    %rescaled = arith.mul(%t, %t) : tile<f32[16, 16]>",
            False,
        ),
        # a rescale that does not read the sum drops it: nothing to update in place
        (ROW_SCALE, "%rescaled = arith.mul(%alpha, %alpha) : tile<f32[16, 16]>", False),
    ],
    ids=["row-scale", "chain-after-dot", "scale-after-dot", "transposed", "no-sum"],
)
def test_a_rescale_reads_the_sum_element_for_element_and_is_ready_at_the_dot(
    before, after, expected
):
    kernel = parse_kernel(LOOP.replace("BEFORE", before).replace("AFTER", after))
    loop = next(op for op in kernel.walk() if op.name == "scf.for")
    body = loop.regions[0].block
    readers: dict = {}
    for op in kernel.walk():
        for value in op.operands:
            readers.setdefault(value, []).append(op)
    add = body.ops[-2]
    dot = next(op for op in body.ops if op.name == "linalg.dot")
    assert rescales(add.operands[0], body.args[1], dot, body, readers) is expected
