"""Every suite program, compiled by the real NineToothed and run in Triton's CPU interpreter.

Skipped when ``ninetoothed`` is not installed, and unless the process started with
``TRITON_INTERPRET=1`` (``make test`` sets it). ``compiler.suite.reference_ninetoothed.cpu_driver``
patches what NineToothed asks a GPU driver, for this module only.

Block sizes are bound into each arrangement (``SuiteKernel.arrangement_kwargs``), so no kernel is
autotuned; ``test_autotuned_block_size`` covers the ``block_size()`` path through the autotuner.
"""

import functools

import pytest
import torch
import triton

from compiler.suite import SUITE, load_program
from compiler.suite.reference_ninetoothed import cpu_driver

ninetoothed = pytest.importorskip("ninetoothed")

pytestmark = pytest.mark.skipif(
    not triton.knobs.runtime.interpret, reason="needs TRITON_INTERPRET=1 before triton is imported"
)


@pytest.fixture(scope="module", autouse=True)
def _cpu_interpreter():
    with cpu_driver():
        yield


def _check_outputs(kernel, args):
    for index, expected in zip(kernel.outputs, kernel.reference(args), strict=True):
        torch.testing.assert_close(args[index], expected, rtol=kernel.rtol, atol=kernel.atol)


@pytest.mark.parametrize("ragged", [True, False], ids=["ragged", "even"])
@pytest.mark.parametrize("name", sorted(SUITE))
def test_program_matches_torch(name, ragged):
    kernel = SUITE[name]
    program = load_program(kernel.path, ninetoothed)
    arrangement = functools.partial(program.arrangement, **kernel.arrangement_kwargs)
    handle = ninetoothed.make(arrangement, program.application, program.tensors)

    args = kernel.make_args(seed=0, ragged=ragged)
    handle(*args, **kernel.call_kwargs)

    _check_outputs(kernel, args)


def test_autotuned_block_size():
    kernel = SUITE["vector_add"]
    program = load_program(kernel.path, ninetoothed)
    handle = ninetoothed.make(
        program.arrangement, program.application, program.tensors, max_num_configs=2
    )

    args = kernel.make_args(seed=1)
    handle(*args)

    _check_outputs(kernel, args)
