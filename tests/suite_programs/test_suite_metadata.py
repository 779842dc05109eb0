"""The suite metadata without compiling anything: inputs, poisoned outputs and references agree."""

import math

import pytest
import torch

from compiler.suite import SUITE


@pytest.mark.parametrize("ragged", [True, False], ids=["ragged", "even"])
@pytest.mark.parametrize("name", sorted(SUITE))
def test_outputs_are_poisoned_and_match_the_reference(name, ragged):
    kernel = SUITE[name]
    args = kernel.make_args(seed=3, ragged=ragged)
    expected = kernel.reference(args)

    assert kernel.path.is_file()
    assert len(expected) == len(kernel.outputs)
    for index, value in zip(kernel.outputs, expected, strict=True):
        output = args[index]
        assert output.isnan().all()
        assert (output.shape, output.dtype) == (value.shape, value.dtype)
        assert value.isfinite().all()


@pytest.mark.parametrize("name", sorted(SUITE))
def test_inputs_are_seeded(name):
    make_args = SUITE[name].make_args
    first, again, other = make_args(seed=5), make_args(seed=5), make_args(seed=6)

    inputs = [i for i, arg in enumerate(first) if i not in SUITE[name].outputs]
    tensors = [i for i in inputs if isinstance(first[i], torch.Tensor)]
    assert all(torch.equal(first[i], again[i]) for i in tensors)
    assert any(not torch.equal(first[i], other[i]) for i in tensors if first[i].is_floating_point())


@pytest.mark.parametrize("name", sorted(SUITE))
def test_ragged_sizes_are_not_powers_of_two(name):
    args = SUITE[name].make_args(seed=0)
    sizes = {size for arg in args if isinstance(arg, torch.Tensor) for size in arg.shape}
    assert any(size > 2 and not math.log2(size).is_integer() for size in sizes)
