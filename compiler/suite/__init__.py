"""The kernel suite: plain NineToothed programs (``programs/``) with torch references.

``SUITE`` maps each entry's name to its ``SuiteKernel``; several entries may share a program file
(``matmul`` and ``matmul_fp16``, ``bmm`` and ``bmm_fp16``; ``flash_attention`` and
``flash_attention_causal``). Load a program with ``load_program(kernel.path, ninetoothed_module)``.
"""

from compiler.suite import cases_matmul, cases_pointwise, cases_reduction
from compiler.suite.kernel import SuiteKernel
from compiler.suite.loader import load_program

SUITE: dict[str, SuiteKernel] = {
    kernel.name: kernel
    for cases in (cases_pointwise, cases_reduction, cases_matmul)
    for kernel in cases.KERNELS
}

__all__ = ["SUITE", "SuiteKernel", "load_program"]
