"""CUDA C++'s GPU form declares its arrays `__shared__`, statically, and a block may declare 48 KB
of those: a kernel past that is refused when it compiles, naming its arrays and the fix (ptxas
refused it at build time: "uses too much shared data (0x10024 bytes, 0xc000 max)"). The host
shim's form of the same source has no such limit and runs."""

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.errors import CompileError
from compiler.suite import SUITE, load_program

SOFTMAX = SUITE["softmax"]


def handle(device: str, block: int):
    program = load_program(SOFTMAX.path, ninetoothed)
    arrangement = program.arrangement

    def arranged(*tensors):
        return arrangement(*tensors, BLOCK_SIZE=block)

    return ninetoothed.make(
        arranged, program.application, program.tensors, backend="cuda", device=device
    )


def test_arrays_past_48_kb_of_static_shared_memory_are_refused_on_the_gpu():
    rows = torch.zeros(2, 12000)
    with pytest.raises(CompileError, match=r"65544 bytes .*f32\[16384\].*past the 49152 bytes"):
        handle("cuda", 16384).compile(rows, torch.empty_like(rows))
    assert "__shared__" in handle("cuda", 8192).compile(rows, torch.empty_like(rows)).source


def test_the_host_shim_form_takes_them():
    rows = torch.randn(2, 12000)
    out = torch.full_like(rows, float("nan"))
    handle("cpu", 16384)(rows, out)
    torch.testing.assert_close(out, torch.softmax(rows, dim=1))
