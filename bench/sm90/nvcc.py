"""A CUDA source (our CUDA C++ form, TileLang's CUDA lowering) compiled by nvcc for sm_90: what
`ptxas -v` says of its entry, its PTX and the SASS of its cubin."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from compiler.runtime.cuda_build import ARCH

from .ptxas import ptxas_usage
from .sass import Sass, sass_of


def compile_for_sm90(
    source: str, kernel: str, flags: list[str], arch: str = ARCH
) -> tuple[tuple, str, Sass]:
    """(ptxas usage, PTX text, SASS) of `source` for `arch` (sm_90, or its sm_90a features)."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise RuntimeError("nvcc not found: install the CUDA toolkit and put its bin/ on PATH")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{kernel}.cu"
        path.write_text(source)
        common = [nvcc, f"-arch={arch}", *flags, str(path)]
        cubin = subprocess.run(
            [*common, "-cubin", "-Xptxas", "-v", "-o", str(path.with_suffix(".cubin"))],
            capture_output=True,
            text=True,
        )
        if cubin.returncode != 0:
            raise RuntimeError(f"nvcc rejected the {kernel} GPU form:\n{cubin.stderr[-2000:]}")
        ptx = subprocess.run(
            [*common, "--ptx", "-o", str(path.with_suffix(".ptx"))], capture_output=True, text=True
        )
        if ptx.returncode != 0:
            raise RuntimeError(f"nvcc --ptx rejected the {kernel} GPU form:\n{ptx.stderr[-2000:]}")
        return (
            ptxas_usage(cubin.stderr + cubin.stdout, kernel),
            path.with_suffix(".ptx").read_text(),
            sass_of(path.with_suffix(".cubin").read_bytes(), kernel),
        )
