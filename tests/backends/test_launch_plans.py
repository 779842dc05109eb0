"""Launch plans: a handle plans each call signature once (compiled, checked, its form chosen) and
reuses the plan for later calls like it; a call whose tensors differ in a way that matters
(strides, sizes, alignment, a reach past the index width, memory shared with another argument)
is planned anew or checked, never run on a plan made for other tensors. Outputs are poisoned."""

import dataclasses
import pickle
import warnings

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS, registry
from compiler.dsl import Tensor
from compiler.errors import CompileError
from compiler.runtime.bindings import LaunchError
from compiler.runtime.overlap import OverlapWarning


def arrange(x, out):
    return x.tile((64,)), out.tile((64,))


def add_one(x, out):
    out = x + 1  # noqa: F841


def arrange_scaled(x, alpha, out):
    return x.tile((64,)), alpha, out.tile((64,))


def scaled(x, alpha, out):
    out = x * alpha  # noqa: F841


BLOCK = ninetoothed.Symbol("BLOCK", meta=True)
# The targets whose CPU form specializes on aligned buffers.
SPECIALIZING = sorted(n for n in TARGETS if registry.get_target(n, "cpu").capability("specialize"))


def kernel(backend: str):
    return ninetoothed.make(arrange, add_one, (Tensor(1), Tensor(1)), backend=backend, device="cpu")


def unread(args):
    raise AssertionError("a steady call builds no key")


def poisoned(n: int) -> torch.Tensor:
    return torch.full((n,), float("nan"))


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_steady_calls_reuse_one_plan_on_fresh_tensors(backend):
    handle = kernel(backend)
    for seed in range(3):
        x, out = torch.randn(100, generator=torch.Generator().manual_seed(seed)), poisoned(100)
        handle(x, out)
        torch.testing.assert_close(out, x + 1)
    handle(x=x, out=(out := poisoned(100)))  # parameters by name: the same signature
    torch.testing.assert_close(out, x + 1)
    assert len(handle._plans) == 1
    assert handle.source == handle.compile(x, out).source

    handle._read_signature = unread  # the last signature planned is compared inline
    handle(x, out := poisoned(100))
    torch.testing.assert_close(out, x + 1)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_new_strides_and_sizes_are_planned_anew(backend):
    handle = kernel(backend)
    handle(torch.randn(100), poisoned(100))
    strided = torch.randn(200)[::2]
    out = poisoned(100)
    handle(strided, out)
    torch.testing.assert_close(out, strided + 1)
    ragged = torch.randn(333)
    out = poisoned(333)
    handle(ragged, out)
    torch.testing.assert_close(out, ragged + 1)
    assert len(handle._plans) == 3


@pytest.mark.parametrize("backend", SPECIALIZING)
def test_a_misaligned_buffer_is_planned_without_the_aligned_form(backend):
    """A target that specializes on 16-byte aligned buffers: a view 4 bytes in is another
    signature, whose form does not assume it aligned."""
    handle = kernel(backend)
    storage = torch.randn(101)
    handle(storage[:100], poisoned(100))
    out = poisoned(100)
    handle(storage[1:], out)
    torch.testing.assert_close(out, storage[1:] + 1)
    aligned, misaligned = (plan.artifact for _, plan, _ in handle._plans.values())
    assert 'aligned = ["x", "out"]' in aligned.ssa
    assert 'aligned = ["x", "out"]' not in misaligned.ssa


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_memory_shared_with_an_output_warns_on_a_planned_signature(backend):
    """The same sizes, strides and alignment as a call already planned: only the overlap is new,
    and the warning names the caller's line."""
    handle = kernel(backend)
    storage = torch.randn(256)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        handle(storage[:100], torch.empty(100))
    with pytest.warns(OverlapWarning, match="out, which the kernel writes, shares memory") as seen:
        handle(storage[:100], storage[64:164])
    assert seen[0].filename == __file__
    assert len(handle._plans) == 1


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_views_of_one_storage_that_do_not_meet_and_an_update_in_place_do_not_warn(backend):
    """Each call on one plan: the written view apart from the read one, then the very same view
    read and written (each program its own tile), then a view four elements off it (aligned as
    the first), which meets it."""
    handle = kernel(backend)
    storage = torch.randn(300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        handle(storage[:100], storage[100:200])
        torch.testing.assert_close(storage[100:200], storage[:100] + 1)
        before = storage[200:].clone()
        handle(storage[200:], storage[200:])
        torch.testing.assert_close(storage[200:], before + 1)
    with pytest.warns(OverlapWarning, match="shares memory"):
        handle(storage[4:104], storage[:100])
    assert len(handle._plans) == 1


def test_calls_the_signature_cannot_read_are_refused_as_compiling_them_says():
    handle = kernel("cuda")
    with pytest.raises(CompileError, match="argument for x must be a torch.Tensor"):
        handle(3.0, poisoned(4))
    with pytest.raises(CompileError, match=r"missing argument\(s\) out"):
        handle(poisoned(4))
    with pytest.raises(CompileError, match="out given by position and by name"):
        handle(poisoned(4), poisoned(4), out=poisoned(4))
    assert not handle._plans


def test_a_reach_past_the_index_width_on_a_planned_signature_is_refused(monkeypatch):
    """Planned on a small tensor, then given a view whose strides reach past 2^31 elements: a
    target without a 64-bit form (stubbed here) refuses it rather than run the 32-bit plan."""
    target = dataclasses.replace(TARGETS["cuda"], wide_index={})
    monkeypatch.setitem(registry.DEVICE_TARGETS, ("cuda", "cpu"), target)
    handle = kernel("cuda")
    x, out = torch.arange(3, dtype=torch.int8), torch.full((3,), 77, dtype=torch.int8)
    handle(x, out)
    assert out.tolist() == [1, 2, 3]
    far = torch.empty(2**31 + 4099, dtype=torch.int8).as_strided((3,), (2**30,))  # never touched
    with pytest.raises(LaunchError, match="strides"):
        handle(far, out)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_scalars_change_from_call_to_call_on_one_plan(backend):
    tensors = (Tensor(1), Tensor(0), Tensor(1))
    handle = ninetoothed.make(arrange_scaled, scaled, tensors, backend=backend, device="cpu")
    x = torch.randn(100)
    for alpha in (2.0, -0.5, 3.25):
        out = poisoned(100)
        handle(x, alpha, out)
        torch.testing.assert_close(out, x * alpha)
    assert len(handle._plans) == 1


def arrange_blocked(x, out, BLOCK_SIZE=BLOCK):
    return x.tile((BLOCK_SIZE,)), out.tile((BLOCK_SIZE,))


def test_meta_values_are_part_of_the_signature():
    handle = ninetoothed.make(arrange_blocked, add_one, (Tensor(1), Tensor(1)), backend="cuda")
    x = torch.randn(100)
    for block in (32, 64, 32):
        out = poisoned(100)
        handle(x, out, BLOCK=block)
        torch.testing.assert_close(out, x + 1)
    assert [plan.artifact.schedule for _, plan, _ in handle._plans.values()] == [
        {"BLOCK": 32},
        {"BLOCK": 64},
    ]
    handle._read_signature = unread  # the last planned, keywords included, is compared inline
    handle(x, out := poisoned(100), BLOCK=64)
    torch.testing.assert_close(out, x + 1)


def test_a_launcher_with_only_launch_checks_and_runs_each_call(monkeypatch):
    """The simplest launcher a new backend starts with: `launch(artifact, bindings)` alone. A
    plan calls it once per launch, with every argument by name."""
    from compiler.runtime import cuda_launcher

    prepare, calls = cuda_launcher.prepare, []

    def launch(artifact, bindings):
        calls.append(sorted(bindings))
        prepare(artifact, bindings)([bindings[name] for name, _ in artifact.args])

    monkeypatch.delattr(cuda_launcher, "prepare")
    monkeypatch.setattr(cuda_launcher, "launch", launch, raising=False)
    handle = kernel("cuda")
    for n in (100, 100, 70):
        x, out = torch.randn(n), poisoned(n)
        handle(x, out)
        torch.testing.assert_close(out, x + 1)
    assert len(calls) == 3 and len(handle._plans) == 2
    assert calls[0] == ["out", "out_size_0", "out_stride_0", "x", "x_size_0", "x_stride_0"]


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_call_unlike_the_last_planned_one_is_planned_or_refused_as_any_other(backend):
    """The last signature planned is checked first (no key looked up); another dtype is planned
    anew, and tensors on another device are refused as a first call on them is."""
    handle = kernel(backend)
    x = torch.randn(100)
    handle(x, poisoned(100))
    wide, out = x.double(), poisoned(100).double()
    handle(wide, out)
    torch.testing.assert_close(out, wide + 1)
    assert len(handle._plans) == 2
    elsewhere = torch.empty(100, device="meta")
    with pytest.raises(LaunchError) as planned:
        handle(elsewhere, elsewhere.clone())
    with pytest.raises(LaunchError) as fresh:
        kernel(backend)(elsewhere, elsewhere.clone())
    assert str(planned.value) == str(fresh.value)


def test_what_the_kernel_raises_on_a_planned_signature_is_raised_once():
    handle = kernel("cuda")
    x = torch.randn(100)
    handle(x, poisoned(100))
    runs = []

    def failing(values):
        runs.append(values)
        raise RuntimeError("the kernel failed")

    for _, plan, _ in handle._plans.values():
        plan.run = failing
    with pytest.raises(RuntimeError, match="the kernel failed"):
        handle(x, poisoned(100))
    assert len(runs) == 1


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_used_handle_pickles_and_its_copy_plans_anew(backend):
    """A handle goes to a process pool as a pickle: its plans are code generated in this
    process (they made a used handle unpicklable), so the copy has none and makes its own."""
    handle = kernel(backend)
    x = torch.randn(100)
    handle(x, poisoned(100))
    copy = pickle.loads(pickle.dumps(handle))
    assert not copy._plans and copy._artifacts.keys() == handle._artifacts.keys()
    for _ in range(2):  # planned, then on its plan
        copy(x, out := poisoned(100))
        assert torch.equal(out, x + 1)
