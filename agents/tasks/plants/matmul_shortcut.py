"""A shortcut for matrix products: emit them directly instead of through the pipeline."""

from __future__ import annotations

from compiler.ir import Kernel


def lower_matmul(kernel: Kernel) -> list[str]:
    """The dot products of `kernel`, each as one line of Triton."""
    lines = []
    for op in kernel.walk():
        if op.name == "linalg.dot":
            lines.append("acc += tl.dot(a, b)")
    return lines
