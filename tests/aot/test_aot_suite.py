"""Every suite kernel built ahead of time (C++ source, shared library, C launch function) for the
CPU on each backend with a CPU form, called through the C calling convention from Python (ctypes),
gives torch's answer on fresh random inputs with ragged sizes and NaN-poisoned outputs."""

import pytest
import torch

from compiler.runtime import aot
from compiler.suite import SUITE
from compiler.suite.checking import build

CPU_FORMS = ("cuda", "tilelang", "tvm")


@pytest.mark.parametrize("name", sorted(SUITE))
@pytest.mark.parametrize("backend", CPU_FORMS)
def test_suite_kernel_through_its_library(backend, name, tmp_path):
    kernel = SUITE[name]
    handle = build(kernel, backend)
    args = kernel.make_args(7)
    expected = kernel.reference(args)
    aot.write(handle, "cpu", tmp_path, like=(args, dict(kernel.call_kwargs)))
    library = aot.load(tmp_path, handle.kernel_name)
    constexprs = {k: v for k, v in kernel.call_kwargs.items() if k in handle.names}
    library(*args, **constexprs)
    for index, want in zip(kernel.outputs, expected, strict=True):
        torch.testing.assert_close(
            args[index].double(), want.double(), rtol=kernel.rtol, atol=kernel.atol
        )
