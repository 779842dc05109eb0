"""Checks that need a fresh Python process: switching to the interpreter after triton was already
imported, and compiling every test kernel for a GPU (sm_90) on a machine without one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import IR_DIR

ROOT = Path(__file__).resolve().parents[2]

LATE_SWITCH = """
import triton.language, torch                      # triton first, not interpreting
from conftest import poisoned, triton_artifact
from compiler.runtime import launch
x = torch.randn(3, 50)
out = poisoned(3, 50)
launch(triton_artifact("rows_exp2_normalized"),   # tl.max, tl.sum: Triton's own @jit functions
       {"x": x, "out": out, "n_rows": 3, "n_cols": 50, "x_stride_0": 50, "out_stride_0": 50})
torch.testing.assert_close(out, torch.softmax(x, 1))
"""

COMPILE_ALL = """
import json, sys
from conftest import triton_artifact
from compiler.runtime.triton_aot import compile_for_gpu
results = {}
for name in sys.argv[1:]:
    artifact = triton_artifact(name)
    # Triton's launcher makes int arguments equal to 1 constexprs: compile unit strides so.
    ones = {arg: 1 for arg, kind in artifact.args if kind == "index" and arg.endswith("stride_1")}
    try:
        results[name] = "cubin" in compile_for_gpu(artifact, arch=90, constants=ones)
    except Exception as error:
        results[name] = f"{type(error).__name__}: {error}"
print(json.dumps(results))
"""


def run_fresh(code: str, *args: str, tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env |= {"PYTHONPATH": f"{ROOT}{os.pathsep}{Path(__file__).parent}"}
    env |= {"TRITON_CACHE_DIR": str(tmp_path / "triton"), "TRITON_DEFAULT_FP_FUSION": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only switch")
def test_interpreter_switch_after_triton_was_imported(tmp_path):
    run_fresh(LATE_SWITCH, tmp_path=tmp_path)


def test_every_kernel_compiles_for_sm90(tmp_path):
    names = sorted(path.stem for path in IR_DIR.glob("*.ssa") if "meta" not in path.stem)
    results = json.loads(run_fresh(COMPILE_ALL, *names, tmp_path=tmp_path).splitlines()[-1])
    assert results == dict.fromkeys(names, True)
