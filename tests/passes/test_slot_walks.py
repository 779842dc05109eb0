"""ssa.lower_parallel on a target whose accumulators each thread holds its own elements of
(`array_dot` with `accumulator_slots`): an element loop that touches one walks this thread's slots,
indexes the accumulator by the slot, and keeps the other arrays it touches shared."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.ir import parse_kernel
from compiler.passes import PassContext, PassManager, parse_pipeline
from compiler.passes.base import PassError

# A sum in an accumulator, scaled element by element by a tile held in `%1`, then copied out.
RESCALE = """
kernel @rescale(%a: buffer<f32>, %b: buffer<f32>, %c: buffer<f32>) {
  %0 = mem.alloc() {dtype = "f32", scope = "fragment", size = 256} : array<f32[256]>
  %1 = mem.alloc() {dtype = "f32", scope = "local", size = 256} : array<f32[256]>
  %2 = mem.alloc() {dtype = "f32", scope = "local", size = 256} : array<f32[256]>
  %3 = arith.constant() {value = 256} : index
  scf.parallel(%3) {shape = [16, 16]} {
  ^(%4: index):
    %5 = mem.load(%a, %4) : f32
    mem.write(%2, %4, %5)
    %6 = mem.load(%b, %4) : f32
    mem.write(%1, %4, %6)
    scf.yield()
  }
  mem.copy(%2, %0) {shape = [16, 16]}
  scf.parallel(%3) {shape = [16, 16]} {
  ^(%7: index):
    %8 = mem.read(%0, %7) : f32
    %9 = mem.read(%1, %7) : f32
    %10 = arith.mul(%8, %9) : f32
    mem.write(%0, %7, %10)
    scf.yield()
  }
  mem.copy(%0, %2) {shape = [16, 16]}
  scf.parallel(%3) {
  ^(%11: index):
    %12 = mem.read(%2, %11) : f32
    mem.store(%c, %11, %12)
    scf.yield()
  }
}
"""


def _target(make_target, parallel: str, slots: bool = True):
    capability = {"dtypes": ("f16",), "multiple": 16, "accumulator": "fragment"}
    target = make_target(
        value_semantics=False,
        parallel=parallel,
        array_dot=capability | ({"accumulator_slots": True} if slots else {}),
    )
    target.memory_scopes.update(tile="local", private="private")
    return target


def _lowered(text: str, target):
    kernel = parse_kernel(text)
    PassManager(parse_pipeline("ssa.lower_parallel"), PassContext(target)).run(kernel)
    return kernel


@pytest.mark.parametrize("parallel", ["threads", "serial"])
def test_an_element_loop_over_an_accumulator_walks_the_slots(parallel, make_target, interpret):
    kernel = _lowered(RESCALE, _target(make_target, parallel))
    ops = list(kernel.walk())
    (slots,) = [op for op in ops if op.name == "mem.owned_slots"]
    (position,) = [op for op in ops if op.name == "mem.owned_position"]
    accumulator = slots.operands[0]
    (walk,) = [op for op in ops if op.name == "scf.for" and position in op.walk()]
    (slot,) = walk.regions[0].block.args
    touching = [op for op in ops if op.name in ("mem.read", "mem.write")]
    for op in touching:
        if op.operands[0] is accumulator:
            assert op.operands[1] is slot  # indexed by the slot, not the position
    scale = next(op for op in touching if op.operands[0] is not accumulator and op in walk.walk())
    assert scale.operands[1] is position.result
    # %1 is only ever touched at its loops' positions, but its loop walks slots: it stays shared.
    assert scale.operands[0].owner.attrs["scope"] == "local"
    assert not any(op.name == "mem.barrier" for op in walk.walk())
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(256, dtype=np.float32) for _ in range(2))
    c = np.full(256, np.nan, np.float32)
    interpret(kernel, {"a": a, "b": b, "c": c})
    np.testing.assert_allclose(c, a * b, rtol=1e-6)


def test_without_slots_the_loop_runs_in_rounds(make_target):
    kernel = _lowered(RESCALE, _target(make_target, "threads", slots=False))
    assert not any(op.name.startswith("mem.owned") for op in kernel.walk())


def test_an_accumulator_read_elsewhere_than_its_position_is_refused(make_target):
    transposed = RESCALE.replace("%8 = mem.read(%0, %7)", "%8 = mem.read(%0, %3)")
    with pytest.raises(PassError, match=r"ssa.lower_parallel: mem.read in @rescale touches"):
        _lowered(transposed, _target(make_target, "threads"))
