"""Running the real NineToothed (0.26) on a machine without a GPU, in Triton's CPU interpreter.

Two things are patched while `cpu_driver()` is active:

- ``triton.runtime.driver.active`` becomes a fake driver. With no GPU Triton has no active driver,
  and NineToothed's ``CodeGenerator.__init__`` and ``calculate_default_configs`` ask it for the
  current device and its properties (``max_num_regs`` sizes the autotuning space,
  ``max_shared_mem`` the default ``num_stages``). Its ``get_benchmarker`` reports the same time
  for every config without running it (only Triton's autotuner calls it), so the autotuner keeps
  the first config and runs that one only: the result every config would give, at the cost of
  one run.
- ``triton.runtime.jit._normalize_ty`` also maps the string ``"triton.language.constexpr"`` to
  ``"constexpr"``. Triton 3.9's interpreter re-compiles each kernel under ``from __future__ import
  annotations``, so NineToothed's ``triton.language.constexpr`` annotations reach it as strings,
  which it recognises only when spelled ``tl.constexpr``; every constexpr parameter (block sizes,
  ``BLOCK_SIZE``, ``is_causal``, constexpr shapes) would be passed as a tensor and fail in
  ``tl.arange``. Compiled (GPU) Triton sees the class itself and is unaffected.

Kernels run only if the process started with ``TRITON_INTERPRET=1``: Triton decides when it is
first imported whether its own ``@triton.jit`` library functions are interpreted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import triton
import triton.runtime.jit


class _FakeUtils:
    @staticmethod
    def get_device_properties(device):
        return {"max_num_regs": 65536, "max_shared_mem": 2**16}


class _FakeDriver:
    utils = _FakeUtils()

    def get_current_device(self):
        return 0

    def get_benchmarker(self):
        return _untimed


def _untimed(kernel_call, quantiles):
    return [1.0 for _ in quantiles]


def _normalize_ty(original):
    def normalize(ty):
        return "constexpr" if ty == "triton.language.constexpr" else original(ty)

    return normalize


@contextmanager
def cpu_driver() -> Iterator[None]:
    """Let NineToothed's `make` and its kernels run on the CPU; restores Triton on exit."""
    saved_driver = triton.runtime.driver._active
    saved_normalize = triton.runtime.jit._normalize_ty
    triton.runtime.driver._active = _FakeDriver()
    triton.runtime.jit._normalize_ty = _normalize_ty(saved_normalize)
    try:
        yield
    finally:
        triton.runtime.driver._active = saved_driver
        triton.runtime.jit._normalize_ty = saved_normalize
