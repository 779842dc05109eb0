"""The names CUDA C++ kernels may not take are every function the host shim's headers declare on
this machine: checked against g++'s own preprocessing of them, and by compiling a kernel named
after one (`ffs`, glibc's, which a shorter list once missed)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends.c_names import C_LIBRARY, C_RESERVED
from compiler.dsl import Tensor

HOST_HEADER = Path(__file__).parents[2] / "compiler/runtime/cuda_shim/ntc_cuda_host.h"
DECLARATION = re.compile(r'extern\s+(?:"C"\s+)?[^;{}()]*?\b([A-Za-z]\w*)\s*\(')


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_every_function_the_headers_declare_is_reserved():
    command = ["g++", "-E", "-P", "-include", str(HOST_HEADER), "-x", "c++", "/dev/null"]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    declared = {name for name in DECLARATION.findall(text) if not name.startswith("_")}
    assert len(declared) > 500  # the regular expression still finds glibc's declarations
    assert declared <= C_LIBRARY | C_RESERVED, sorted(declared - C_LIBRARY - C_RESERVED)


def ffs(x, out):
    out = x + 1  # noqa: F841


def test_a_kernel_named_like_a_library_function_builds():
    kernel = ninetoothed.make(
        lambda x, out: (x.tile((8,)), out.tile((8,))), ffs, (Tensor(1), Tensor(1)), backend="cuda"
    )
    x, out = torch.randn(20), torch.full((20,), float("nan"))
    kernel(x, out)
    assert torch.equal(out, x + 1)
