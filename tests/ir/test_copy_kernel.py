"""`copy_kernel` (what lowering works on) equals printing and parsing the kernel back, for every
suite kernel's front-end output and every stage of its pipeline, and shares nothing with it."""

import pytest

from compiler.ir import parse_kernel, print_kernel
from compiler.ir.parser import copy_kernel
from compiler.suite import SUITE
from compiler.suite.checking import build


def stages(name: str, backend: str) -> list[str]:
    kernel = SUITE[name]
    artifact = build(kernel, backend).compile(*kernel.make_args(0), **kernel.call_kwargs)
    return [artifact.initial_ssa] + [entry["ir"] for entry in artifact.trace]


@pytest.mark.parametrize("backend", ["triton", "cuda"])
@pytest.mark.parametrize("name", ["softmax", "matmul", "conv2d", "flash_attention_causal"])
def test_copy_equals_the_text_round_trip(name, backend):
    for text in stages(name, backend):
        kernel = parse_kernel(text)
        copy = copy_kernel(kernel)
        assert print_kernel(copy) == print_kernel(parse_kernel(print_kernel(kernel)))
        copy.attrs["marker"] = 1
        for op in copy.walk():
            op.attrs["marker"] = 1
        assert print_kernel(kernel) == text  # the original is untouched
