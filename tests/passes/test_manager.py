"""The pass manager: verification after every pass and the recorded trace."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

import compiler.passes.manager as manager
from compiler.errors import VerificationError
from compiler.ir import Kernel, parse_kernel, print_kernel
from compiler.passes import Pass, PassContext, PassError, PassManager, parse_pipeline, trace_to_json
from compiler.passes.helpers.rewrite import erase

KERNEL = """\
kernel @scale(%x: buffer<f32>, %n: index) attributes {meta = [["BLOCK_SIZE_0", 1, 1024]]} {
  %pid = index.program_id() {axis = 0} : index
  %bs = index.meta() {name = "BLOCK_SIZE_0"} : index
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %start = arith.mul(%pid, %bs) : index
  %start1 = arith.add(%start, %one) : index
  %start2 = arith.sub(%start1, %one) : index
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  %sb = tile.broadcast(%start2) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
  %offs = arith.add(%sb, %r) : tile<index[BLOCK_SIZE_0]>
  %nb = tile.broadcast(%n) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
  %mask = arith.cmp(%offs, %nb) {pred = "lt"} : tile<i1[BLOCK_SIZE_0]>
  %v = mem.load(%x, %offs, %mask) : tile<f32[BLOCK_SIZE_0]>
  %e = math.exp(%v) : tile<f32[BLOCK_SIZE_0]>
  mem.store(%x, %offs, %e, %mask)
}
"""

PIPELINE = (
    "ssa.canonicalize,ssa.analyze_effects,ssa.select_schedule{BLOCK_SIZE_0=32},"
    "ssa.decompose_linalg,ssa.lower_memory_scopes,ssa.lower_backend_intrinsics"
)
KEYS = ["pass", "category", "options", "ir", "op_counts", "op_count_delta", "seconds"]
KEYS += ["changed", "verified", "remarks"]


def run(pipeline: str, target, kernel: Kernel | None = None):
    kernel = kernel or parse_kernel(KERNEL)
    return kernel, PassManager(parse_pipeline(pipeline), PassContext(target)).run(kernel)


def test_trace_records_each_pass_with_the_ir_after_it(make_target):
    kernel, trace = run(PIPELINE, make_target(("math.exp",)))
    assert [entry.pass_name for entry in trace] == [p.split("{")[0] for p in PIPELINE.split(",")]
    records = json.loads(trace_to_json(trace))
    assert all(list(record) == KEYS for record in records)
    assert records[2]["options"] == {
        "rule": "largest",
        "cap": 64,
        "tune": True,
        "tune_cap": 1024,
        "max_configs": 8,
        "BLOCK_SIZE_0": 32,
    }
    assert records[2]["remarks"] == ["schedule BLOCK_SIZE_0=32 (given)"]
    assert records[-1]["ir"] == print_kernel(kernel)
    assert all(record["verified"] and record["seconds"] >= 0 for record in records)
    assert [record["changed"] for record in records] == [True, True, True, False, True, True]


def test_changed_flags_and_op_deltas_match_the_ir(make_target):
    before = parse_kernel(KERNEL)
    _, trace = run(PIPELINE, make_target(("math.exp",)), parse_kernel(KERNEL))
    ir, counts = print_kernel(before), before.op_counts()
    for entry in trace:
        assert entry.changed == (entry.ir != ir), entry.pass_name
        after = parse_kernel(entry.ir).op_counts()
        assert entry.op_counts == after
        names = set(counts) | set(after)
        expected = {n: after.get(n, 0) - counts.get(n, 0) for n in sorted(names)}
        assert entry.op_count_delta == {n: d for n, d in expected.items() if d}
        ir, counts = entry.ir, after
    canonicalize, _, schedule, _, _, lower = trace
    assert canonicalize.op_count_delta == {"arith.add": -1, "arith.constant": -2, "arith.sub": -1}
    assert schedule.op_count_delta == {"arith.constant": 1, "index.meta": -1}
    exp_to_exp2 = {"arith.constant": 1, "arith.mul": 1, "math.exp": -1, "math.exp2": 1}
    assert lower.op_count_delta == exp_to_exp2


@dataclass(frozen=True)
class Claims(Pass):
    """Returns `claim` whatever it did; erases the first store when `erase_store` is set."""

    name = "ssa.test.claims"
    category = "hardware-independent"
    description = "a pass whose changed flag may lie"

    claim: bool = True
    erase_store: bool = False

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        if self.erase_store:
            erase(next(op for op in kernel.walk() if op.name == "mem.store"))
        return self.claim


@pytest.mark.parametrize(("claim", "erase_store"), [(True, False), (False, True)])
def test_a_pass_must_report_changed_truthfully(claim, erase_store):
    manager = PassManager([Claims(claim=claim, erase_store=erase_store)])
    with pytest.raises(PassError, match="ssa.test.claims: returned changed="):
        manager.run(parse_kernel(KERNEL))


@dataclass(frozen=True)
class Breaks(Pass):
    name = "ssa.test.breaks"
    category = "hardware-independent"
    description = "moves the program id after its first use"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        kernel.body.ops.append(kernel.body.ops.pop(0))
        return True


def test_verification_failure_names_the_pass_and_shows_the_op():
    with pytest.raises(VerificationError) as caught:
        PassManager([Breaks()]).run(parse_kernel(KERNEL))
    message = str(caught.value)
    assert message.startswith("ssa.test.breaks: op #")
    assert "(arith.mul)" in message and "not defined before it" in message
    assert ">>   %4 = arith.mul(%3, %0) : index" in message


@dataclass(frozen=True)
class NeverApplies(Pass):
    """Would fail if run; says beforehand that it has nothing to do."""

    name = "ssa.test.never_applies"
    category = "hardware-independent"
    description = "a pass whose capability check says it does nothing"

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        return False

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        raise AssertionError("run although it does not apply")


@dataclass(frozen=True)
class MarksKernel(Pass):
    name = "ssa.test.marks_kernel"
    category = "hardware-independent"
    description = "sets a kernel attribute, nothing else"

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        kernel.attrs["marked"] = True
        return True


def test_a_pass_that_does_not_apply_is_recorded_without_running():
    kernel = parse_kernel(KERNEL)
    (entry,) = PassManager([NeverApplies()]).run(kernel)
    assert entry.ir == print_kernel(kernel) == print_kernel(parse_kernel(KERNEL))
    assert entry.op_counts == kernel.op_counts() and entry.op_count_delta == {}
    assert not entry.changed and entry.verified and entry.remarks == ()


def test_a_change_to_the_kernel_attributes_alone_is_not_verified_again(monkeypatch):
    verified = []
    monkeypatch.setattr(manager, "verify", lambda kernel: verified.append(print_kernel(kernel)))
    passes = [MarksKernel(), *parse_pipeline("ssa.canonicalize")]
    marked, canonical = PassManager(passes).run(parse_kernel(KERNEL))
    assert marked.changed and marked.verified and "marked = true" in marked.ir
    assert canonical.changed and canonical.verified
    # the input, then the canonical body; the marked kernel's body is the input's
    assert verified == [print_kernel(parse_kernel(KERNEL)), canonical.ir]


def test_invalid_input_is_reported_before_the_first_pass():
    kernel = parse_kernel(KERNEL)
    kernel.body.ops.append(kernel.body.ops.pop(0))
    with pytest.raises(VerificationError, match="^input of ssa.canonicalize: op #"):
        PassManager(parse_pipeline("ssa.canonicalize")).run(kernel)


def test_passes_that_need_a_target_say_so():
    with pytest.raises(PassError, match="ssa.lower_memory_scopes: needs a target"):
        PassManager(parse_pipeline("ssa.lower_memory_scopes")).run(parse_kernel(KERNEL))


def test_target_without_a_global_scope_spelling(make_target):
    target = make_target()
    target.memory_scopes.clear()
    with pytest.raises(PassError, match="target stand-in has no spelling for the global memory"):
        run("ssa.lower_memory_scopes", target)


def test_unverified_runs_say_so(make_target):
    manager = PassManager(parse_pipeline("ssa.analyze_effects"), verify=False)
    (entry,) = manager.run(parse_kernel(KERNEL))
    assert entry.verified is False and entry.changed


def test_canonicalize_reports_a_missing_fixed_point():
    with pytest.raises(PassError, match="no fixed point after 1 rounds"):
        PassManager(parse_pipeline("ssa.canonicalize{max_iterations=1}")).run(parse_kernel(KERNEL))


def test_schedule_prefers_pass_options_over_context_options(make_target):
    for pipeline, expected in (("ssa.select_schedule", 16), (PIPELINE.split(",")[2], 32)):
        kernel = parse_kernel(KERNEL)
        ctx = PassContext(make_target(), {"BLOCK_SIZE_0": 16, "num_warps": 4})
        PassManager(parse_pipeline(pipeline), ctx).run(kernel)
        assert kernel.attrs["schedule"] == [["BLOCK_SIZE_0", expected]]
        assert "meta" not in kernel.attrs


def test_every_default_pass_is_idempotent(make_target):
    kernel, _ = run(PIPELINE, make_target(("math.exp",)))
    _, trace = run(PIPELINE.replace("{BLOCK_SIZE_0=32}", ""), make_target(("math.exp",)), kernel)
    assert not any(entry.changed for entry in trace)
    assert all(entry.op_count_delta == {} for entry in trace)
