"""Every suite program, compiled by the real NineToothed and run in Triton's CPU interpreter.

Skipped when ``ninetoothed`` is not installed, and unless the process started with
``TRITON_INTERPRET=1`` (``make test`` sets it): Triton decides when it is first imported whether its
own ``@triton.jit`` library functions (``tl.max``, ``tl.sum``, ...) are interpreted, so setting the
variable later is not enough. Two things are patched, for this module only:

- ``triton.runtime.driver.active`` becomes a fake driver. This machine has no GPU, so Triton has no
  active driver, and NineToothed's ``CodeGenerator.__init__`` and ``calculate_default_configs``
  ask it for the current device and its properties (``max_num_regs`` sizes the autotuning space,
  ``max_shared_mem`` the default ``num_stages``). Its ``get_benchmarker`` runs a config once and
  reports a constant time; only Triton's autotuner calls it.
- ``triton.runtime.jit._normalize_ty`` also maps the string ``"triton.language.constexpr"`` to
  ``"constexpr"``. Triton 3.9's interpreter re-compiles each kernel under ``from __future__ import
  annotations``, so NineToothed's ``triton.language.constexpr`` annotations reach it as strings,
  which it recognises only when spelled ``tl.constexpr``; every constexpr parameter (block sizes,
  ``BLOCK_SIZE``, ``is_causal``, constexpr shapes) would be passed as a tensor and fail in
  ``tl.arange``. Compiled (GPU) Triton sees the class itself and is unaffected.

Block sizes are bound into each arrangement (``SuiteKernel.arrangement_kwargs``), so no kernel is
autotuned; ``test_autotuned_block_size`` covers the ``block_size()`` path through the autotuner.
"""

import functools

import pytest
import torch
import triton
import triton.runtime.jit

from compiler.suite import SUITE, load_program

ninetoothed = pytest.importorskip("ninetoothed")

pytestmark = pytest.mark.skipif(
    not triton.knobs.runtime.interpret, reason="needs TRITON_INTERPRET=1 before triton is imported"
)


class _FakeUtils:
    @staticmethod
    def get_device_properties(device):
        return {"max_num_regs": 65536, "max_shared_mem": 2**16}


class _FakeDriver:
    utils = _FakeUtils()

    def get_current_device(self):
        return 0

    def get_benchmarker(self):
        return _run_once


def _run_once(kernel_call, quantiles):
    kernel_call()
    return [1.0 for _ in quantiles]


def _normalize_ty(original):
    def normalize(ty):
        return "constexpr" if ty == "triton.language.constexpr" else original(ty)

    return normalize


@pytest.fixture(scope="module", autouse=True)
def _cpu_interpreter():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(triton.runtime.driver, "_active", _FakeDriver())
        patch.setattr(
            triton.runtime.jit, "_normalize_ty", _normalize_ty(triton.runtime.jit._normalize_ty)
        )
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
