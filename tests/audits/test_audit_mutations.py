"""Mutation test: each kind of violation, planted into a copy of real emitter code, is caught.

Plants go into the first function that takes an argument (statements) or at the end of the module
(definitions), so any emitter module can be a host: add the compiler's backend modules to HOSTS
once they exist.
"""

from __future__ import annotations

import libcst as cst
import pytest
from audit_support import FIXTURE_PROJECT, REPOSITORY

from audits.config import load_config
from audits.engine import audit_source
from audits.op_registry import load_registry_ops

HOSTS = [FIXTURE_PROJECT / "minicc" / "emitter.py"]
CONFIG = load_config(FIXTURE_PROJECT / "pyproject.toml")
REGISTRY, _ = load_registry_ops(CONFIG)

# (code, where, snippet); {arg} is the host function's first argument
PLANTS = [
    ("LWA001", "module", "def lower_matmul(kernel, target):\n    return emit(kernel, target)\n"),
    ("LWA001", "module", "class FlashAttentionEmitter:\n    pass\n"),
    (
        "LWA002",
        "function",
        'if getattr({arg}, "name", None) == "flash_attention":\n    return None\n',
    ),
    ("LWA002", "function", 'handler = getattr({arg}, "emit_" + str({arg}))\n'),
    ("LWA002", "module", 'SPECIAL = {"softmax": None, "rms_norm": None}\n'),
    ("LWA002", "module", "import enum\nclass Kind(enum.Enum):\n    MATMUL = 1\n"),
    (
        "LWA003",
        "module",
        'CUDA_KERNEL = """\n__global__ void k(float* x) {\n'
        '  x[blockIdx.x * blockDim.x + threadIdx.x] = 0;\n}\n"""\n',
    ),
    (
        "LWA003",
        "function",
        "source = f'''@triton.jit\ndef k(x):\n"
        "    tl.store(x, tl.load(x) + tl.program_id({arg}))\n'''\n",
    ),
    ("LWA004", "module", "import jinja2\n"),
    ("LWA004", "function", 'template = open("kernels/matmul.cu.tpl").read()\n'),
    ("LWA005", "function", 'fused = "nt.flash_attention"\n'),
    ("LWA005", "function", 'legal = "math.tanh"\n'),
    ("LWA006", "function", 'if getattr({arg}, "backend", "") == "cuda":\n    return None\n'),
    ("LWA006", "function", "if isinstance({arg}, CudaTarget):\n    return None\n"),
]


class _Planter(cst.CSTTransformer):
    """Puts statements at the top of the first function with an argument."""

    def __init__(self, snippet: str) -> None:
        self.snippet = snippet
        self.planted = False

    def leave_FunctionDef(self, original, updated):
        if self.planted or not updated.params.params:
            return updated
        self.planted = True
        argument = updated.params.params[0].name.value
        statements = cst.parse_module(self.snippet.format(arg=argument)).body
        return updated.with_changes(
            body=updated.body.with_changes(body=[*statements, *updated.body.body])
        )


def plant(source: str, where: str, snippet: str) -> str:
    if where == "module":
        return source + "\n\n" + snippet
    planter = _Planter(snippet)
    planted = cst.parse_module(source).visit(planter).code
    assert planter.planted, "the host has no function with an argument"
    return planted


def _audit(source: str, host) -> list:
    path = host.relative_to(CONFIG.root).as_posix()
    return audit_source(source, CONFIG, path, REGISTRY)


@pytest.mark.parametrize("host", HOSTS, ids=lambda host: host.relative_to(REPOSITORY).as_posix())
def test_hosts_are_clean(host):
    assert _audit(host.read_text(), host) == []


@pytest.mark.parametrize("host", HOSTS, ids=lambda host: host.name)
@pytest.mark.parametrize(("code", "where", "snippet"), PLANTS)
def test_planted_violation_is_caught(host, code: str, where: str, snippet: str):
    original = {(f.code, f.subject) for f in _audit(host.read_text(), host)}
    mutated = plant(host.read_text(), where, snippet)
    new = [f for f in _audit(mutated, host) if (f.code, f.subject) not in original]
    assert code in {f.code for f in new}, mutated
