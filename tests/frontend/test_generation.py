"""A kernel's generated module (`kernel._source`, NineToothed's generated file): the kernel in
every configuration it tunes over, importable, each launching the right answer. On every backend,
against torch, outputs poisoned first."""

import importlib.util
import re

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.runtime.bindings import LaunchError

BLOCK_SIZE = ninetoothed.block_size(8, 32)


def arrangement(input, other, output, scale, block_size=BLOCK_SIZE):
    return input.tile((block_size,)), other.tile((block_size,)), output.tile((block_size,)), scale


def application(input, other, output, scale):
    output = input * scale + other  # noqa: F841


def tensors():
    return Tensor(1), Tensor(1), Tensor(1), Tensor(0, constexpr=True, value=3)


def blocked_by_64(backend: str, **options):
    def arranged(input, other, output, scale):
        return arrangement(input, other, output, scale, block_size=64)

    return ninetoothed.make(arranged, application, tensors(), backend=backend, **options)


def imported(path: str):
    spec = importlib.util.spec_from_file_location("generated", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))


def check(launch, size: int) -> None:
    input, other = torch.randn(size), torch.randn(size)
    output = torch.full((size,), float("nan"))
    launch(input, other, output, 3)
    torch.testing.assert_close(output, input * 3 + other)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_tuned_kernel_generates_each_configuration(backend):
    kernel = ninetoothed.make(
        arrangement, application, tensors(), backend=backend, num_warps=(2, 4), max_num_configs=3
    )
    module = imported(kernel._source)
    configurations = [v for k, v in vars(module).items() if re.fullmatch(r"application_\d", k)]
    assert 2 <= len(configurations) <= 3  # num_warps' two at least, max_num_configs at most
    assert module.launch_application is module.application_with_auto_tuning
    chosen = {(tuple(c.artifact.schedule.items()), c.artifact.num_warps) for c in configurations}
    assert len(chosen) == len(configurations)
    for configuration in configurations:
        check(configuration, 777)
    check(module.launch_application, 1000)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_fixed_kernel_generates_one(backend):
    fixed = blocked_by_64(backend, num_warps=2)
    text = open(fixed._source).read()
    assert "with_auto_tuning" not in text and "num_warps=" in text and "num_stages=" in text
    launch = imported(fixed._source).launch_application
    assert launch.artifact.num_warps in (2, None)  # None: a CPU form runs no warps
    check(launch, 300)


def test_a_call_unlike_the_generated_signature_is_refused():
    launch = imported(ninetoothed.make(arrangement, application, tensors())._source)
    launch = launch.application_0
    half = torch.randn(8, dtype=torch.float16)
    with pytest.raises(LaunchError, match="dtype|float16"):
        launch(half, half, half.clone(), 3)
    single = torch.randn(8)
    with pytest.raises(LaunchError, match="constexpr scale was compiled as 3.*gives 5"):
        launch(single, single, single.clone(), 5)
    with pytest.raises(LaunchError, match=r"takes 4 arguments \(input, other, output, scale\)"):
        launch(single, single)
    with pytest.raises(LaunchError, match="argument for other must be a torch.Tensor, got float"):
        launch(single, 2.0, single.clone(), 3)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_an_option_a_form_does_not_take_is_not_tuned_and_the_module_says_so(backend):
    kernel = blocked_by_64(backend, num_warps=(2, 4))
    module = imported(kernel._source)
    assert module.launch_application is module.application_with_auto_tuning  # as asked
    configurations = [v for k, v in vars(module).items() if re.fullmatch(r"application_\d", k)]
    warps = {configuration.artifact.num_warps for configuration in configurations}
    if warps != {2, 4}:
        assert warps == {None} and len(configurations) == 1
        assert "One configuration, the only one of those asked for here; num_warps=(2, 4) is " in (
            module.__doc__
        )
        assert "not tuned: this form of the kernel takes no num_warps" in module.__doc__
    check(module.launch_application, 200)


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_block_size_left_open_is_tuned_even_where_the_tile_cap_leaves_one_value(backend):
    def arranged(input, other, output, scale):
        return arrangement(input, other, output, scale, block_size=ninetoothed.block_size(32))

    kernel = ninetoothed.make(arranged, application, tensors(), backend=backend)
    module = imported(kernel._source)
    assert module.launch_application is module.application_with_auto_tuning
    if not hasattr(module, "application_1"):
        assert re.search(
            r"BLOCK_SIZE_\d+: one value here, the bounds within the target's tile ca",
            module.__doc__,
        )
    check(module.launch_application, 100)
