"""The static GPU report (`make gpu-static`): ptxas's numbers read right, TileLang's dynamic shared
memory counted, and the script itself on one kernel through nvcc."""

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("gpu_static", ROOT / "bench" / "gpu_static.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


PTXAS_LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'other_kernel' for 'sm_90'
ptxas info    : Used 8 registers, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_Z6matmulPfS_' for 'sm_90'
ptxas info    : Function properties for _Z6matmulPfS_
    24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, 20480 bytes smem, 432 bytes cmem[0]
"""


def test_ptxas_usage_is_read_for_the_named_entry():
    module = _script()
    assert module.ptxas_usage(PTXAS_LOG, "matmul") == (255, 20480, 24, 28)
    assert module.ptxas_usage(PTXAS_LOG, "other_kernel") == (8, 0, 0, 0)
    with pytest.raises(RuntimeError, match="nothing for an entry named like 'softmax'"):
        module.ptxas_usage(PTXAS_LOG, "softmax")


def test_tilelang_dynamic_shared_memory_is_counted_from_the_program():
    program = (
        "a = T.alloc_shared((256,), T.float16)\n"
        "b = T.alloc_shared((32, 64), T.float32)\n"
        "c = T.alloc_var(T.int32, init=0)\n"
    )
    assert _script().dynamic_shared_bytes(program) == 256 * 2 + 32 * 64 * 4


def test_async_copies_are_read_with_their_width():
    ptx = (
        "\tcp.async.ca.shared.global [%r298], [%rd127], 8, %r19;\n"
        "\tcp.async.cg.shared.global.L2::128B [%r1+16], [%rd2], 16;\n"
        "\tcp.async.commit_group;\n\tcp.async.wait_group 1;\n"
    )
    assert _script().ASYNC_COPY.findall(ptx) == ["8", "16"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_report_for_one_kernel(tmp_path):
    out = tmp_path / "gpu_static.md"
    assert _script().main(["--kernel", "vector_add", "--out", str(out)]) == 0
    text = out.read_text()
    assert "| vector_add | cuda | " in text and "| vector_add | tilelang | " in text
    assert "| 0 bytes spilled or on the stack in matmul and attention | not checked" in text
    assert "| elementwise tiles in registers: no shared memory, no stack in vector_add" in text
    assert "fused_elementwise | met |" in text
    assert "on arrays of its shape | not checked" in text  # no 2-D tiles in vector_add
    assert "each thread rescaling its own elements" in text  # attention's row, not checked here
    # at GPU block sizes each thread's lanes of its contiguous tensors go as vectors
    assert "vector_add, fused_elementwise, softmax, rms_norm and the matmul" in text
    wide = text.split("At the GPU block sizes the benchmark")[1].split("## Targets")[0]
    (row,) = [line for line in wide.splitlines() if line.startswith("| vector_add | cuda |")]
    assert int(row.split("|")[9]) == 3  # two vector loads and one vector store
    # both backends at their own GPU block sizes, TileLang's with nothing on the stack
    (row,) = [line for line in wide.splitlines() if line.startswith("| vector_add | tilelang |")]
    assert row.split("|")[5].strip() == "0 B"
    assert "| TileLang at GPU block sizes: every kernel builds with no stack" in text
