"""Whether Triton compiles for the GPU or interprets on the CPU, and switching to the interpreter.

Triton reads the mode at decoration time: `@triton.jit` returns an interpreted function when
`triton.knobs.runtime.interpret` is true (`triton/runtime/jit.py`), and that knob re-reads the
`TRITON_INTERPRET` environment variable on every access. Two kinds of functions are decorated:

- the emitted kernels, decorated when the launcher imports their module: setting the knob before
  that import is enough;
- Triton's own `@jit` library functions in `triton.language.standard` (`tl.sum`, `tl.max`,
  `tl.min`), decorated when `triton.language` is first imported. If that happened before the
  switch, the library module is reloaded so those functions are decorated again, interpreted.

So the switch works whether or not triton was imported earlier. It happens only when there is no
CUDA GPU (or the user already asked for it with `TRITON_INTERPRET=1`); on a GPU nothing changes.

One interpreter bug is worked around (Triton 3.9): a comparison's result carries the dtype of its
operands (e.g. int32) over boolean data, so splatting a scalar comparison (`tl.broadcast_to(a < b,
shape)`) makes an int32 mask that `tl.load` rejects. Boolean results are labelled `tl.int1`.
"""

from __future__ import annotations

import importlib

import torch


def interpreting() -> bool:
    """Whether emitted kernels run in Triton's interpreter; switches to it when there is no GPU."""
    from triton import knobs

    if not knobs.runtime.interpret and not torch.cuda.is_available():
        knobs.runtime.interpret = True  # also exports TRITON_INTERPRET=1
    if knobs.runtime.interpret:
        _interpret_standard_library()
        _label_boolean_results()
    return knobs.runtime.interpret


def _interpret_standard_library() -> None:
    import triton.language as tl
    from triton.language import standard
    from triton.runtime.interpreter import InterpretedFunction

    if isinstance(standard.sum, InterpretedFunction):
        return
    before = dict(vars(standard))
    importlib.reload(standard)  # re-runs its @jit decorators, now interpreted
    for name, value in list(vars(tl).items()):
        if before.get(name) is value and hasattr(standard, name):
            setattr(tl, name, getattr(standard, name))


def _label_boolean_results() -> None:
    import numpy as np
    import triton.language as tl
    from triton.runtime.interpreter import InterpreterBuilder

    original = InterpreterBuilder.binary_op
    if getattr(original, "labels_booleans", False):
        return

    def binary_op(self, lhs, rhs, op):
        result = original(self, lhs, rhs, op)
        if result.data.dtype == np.bool_:
            result.dtype = tl.int1
        return result

    binary_op.labels_booleans = True
    InterpreterBuilder.binary_op = binary_op
