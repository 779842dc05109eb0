"""Fixtures for backend tests: hand-written, already-lowered IR kernels and a private cache dir."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from compiler.backends import Artifact, build_artifact
from compiler.backends.triton import TARGET as TRITON
from compiler.ir import Kernel, parse_kernel, verify

IR_DIR = Path(__file__).parent / "ir"


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NTC_CACHE_DIR", str(tmp_path_factory.mktemp("ntc-cache")))
        yield


def load_ir(name: str) -> Kernel:
    kernel = parse_kernel((IR_DIR / f"{name}.ssa").read_text())
    verify(kernel)
    return kernel


def triton_artifact(name: str) -> Artifact:
    return build_artifact(load_ir(name), TRITON)


def poisoned(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """An output buffer full of NaN, so any element the kernel fails to write shows up."""
    return torch.full(shape, float("nan"), dtype=dtype)
