"""Mutation test: each kind of violation, planted into a copy of real emitter code, is caught.

Plants go into the first function that takes an argument (statements) or at the end of the module
(definitions), so any module can be a host. Hosts are the fixture project's emitter, audited with
its configuration, the compiler's own backend and decomposition code, audited with this
repository's `[tool.lowering-audit]`, and NineToothed's code generator, audited with
audits/reuse/ninetoothed.toml.
"""

from __future__ import annotations

import base64

import libcst as cst
import pytest
from audit_support import FIXTURE_PROJECT, NINETOOTHED_CONFIG, NINETOOTHED_SITE, REPOSITORY

from audits.config import load_config
from audits.engine import audit_source
from audits.op_registry import load_registry_ops

FIXTURE_CONFIG = load_config(FIXTURE_PROJECT / "pyproject.toml")
REPOSITORY_CONFIG = load_config(REPOSITORY / "pyproject.toml")
BACKEND_SPECIFIC = frozenset({"LWA006"})  # a backend's own folder may name its backend
UNREGISTERED_OP = 'legal = "math.lgamma"\n'  # only a configured op registry tells it is not an op
IDENTITY_FLOW = frozenset({"LWA008"})

# (host, its configuration, codes or plants its configuration does not apply to)
HOSTS = [
    (FIXTURE_PROJECT / "minicc" / "emitter.py", FIXTURE_CONFIG, frozenset()),
    (REPOSITORY / "compiler" / "backends" / "emitter.py", REPOSITORY_CONFIG, frozenset()),
    (REPOSITORY / "compiler" / "backends" / "lowering.py", REPOSITORY_CONFIG, frozenset()),
    (
        REPOSITORY / "compiler/passes/hardware_independent/decompose_linalg.py",
        REPOSITORY_CONFIG,
        frozenset(),
    ),
    (
        REPOSITORY / "compiler" / "backends" / "triton" / "target.py",
        REPOSITORY_CONFIG,
        BACKEND_SPECIFIC,
    ),
    # a single-target compiler without an op registry: its configuration names no backends
    (
        NINETOOTHED_SITE / "ninetoothed" / "generation.py",
        NINETOOTHED_CONFIG,
        BACKEND_SPECIFIC | {UNREGISTERED_OP} | IDENTITY_FLOW,  # re-emits the program's source
    ),
]
_REGISTRIES = {}
HIDDEN_KERNEL = base64.b64encode(b"@triton.jit\ndef k(x):\n    tl.store(x, tl.load(x))\n").decode()

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
    ("LWA005", "function", UNREGISTERED_OP),
    ("LWA005", "function", 'fused = "linalg.softmax"\n'),
    ("LWA005", "module", 'FUSION_PASS = "ssa.fuse_attention"\n'),
    # names computed from constant pieces, patterns over names, encoded text
    ("LWA002", "function", 'if str({arg}) == "%s%s" % ("soft", "max"):\n    return None\n'),
    (
        "LWA002",
        "module",
        'SPECIAL_KIND = "_".join(("flash", "attention"))\n\n\n'
        "def _is_special(op):\n    return op == SPECIAL_KIND\n",
    ),
    ("LWA002", "module", 'import re\n\nSPECIAL = re.compile(r"m.tm.l|soft(max|min)")\n'),
    (
        "LWA002",
        "function",
        'if str({arg}) == bytes.fromhex("6d61746d756c").decode():\n    return None\n',
    ),
    ("LWA003", "module", f"import base64\n\nHIDDEN = base64.b64decode({HIDDEN_KERNEL!r})\n"),
    ("LWA007", "module", 'import zlib\n\nBLOB = zlib.decompress(b"not zlib data, only bytes")\n'),
    ("LWA006", "function", 'if getattr({arg}, "backend", "") == "cuda":\n    return None\n'),
    ("LWA006", "function", "if isinstance({arg}, CudaTarget):\n    return None\n"),
    ("LWA006", "function", 'if {arg}.name == "triton":\n    return None\n'),
    # who the kernel is, read from data that is no string literal (`program`: a user's function)
    (
        "LWA008",
        "function",
        "key = hashlib.sha256(str({arg}.kernel_name).encode()).hexdigest()\n"
        'if key[:4] == "a1b2":\n    return None\n',
    ),
    ("LWA008", "function", 'if "online" in (program.__doc__ or ""):\n    return None\n'),
    (
        "LWA008",
        "function",
        'hints = program.__annotations__\nif "scale" in hints:\n    return None\n',
    ),
    (
        "LWA008",
        "function",
        "names = list(inspect.signature(program).parameters)\nchosen = WARPS.get(names[0])\n",
    ),
    (
        "LWA008",
        "function",
        'for word in Path(__file__).with_name("warps").read_text().split():\n'
        "    if word:\n        return None\n",
    ),
    ("LWA008", "function", 'if os.environ.get("NT_FAST"):\n    return None\n'),
    (
        "LWA008",
        "function",
        'for entry in os.listdir("."):\n    if entry.endswith(".x"):\n        return None\n',
    ),
    ("LWA008", "function", 'text = "\\n".join([inspect.getsource(program), "x"])\n'),
    # another module's code replaced from here
    (
        "LWA009",
        "module",
        "from . import sibling\n\n\ndef patched(*args):\n    return None\n\n\n"
        "sibling.Pass.run = patched\n",
    ),
    ("LWA009", "module", 'from . import sibling\n\nsetattr(sibling, "emit", lambda *a: "")\n'),
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


def _registry(config):
    if config.root not in _REGISTRIES:
        ops, problem = load_registry_ops(config)
        assert problem is None, problem
        _REGISTRIES[config.root] = ops
    return _REGISTRIES[config.root]


def _audit(source: str, host, config) -> list:
    path = _host_id(host, config)
    return audit_source(source, config, path, _registry(config))


def _new_codes(host, config, where: str, snippet: str) -> set[str]:
    original = {(f.code, f.subject) for f in _audit(host.read_text(), host, config)}
    mutated = plant(host.read_text(), where, snippet)
    return {f.code for f in _audit(mutated, host, config) if (f.code, f.subject) not in original}


def _host_id(host, config) -> str:
    return host.relative_to(config.root).as_posix()


def _cases(exempt: bool) -> list:
    """(host, config, code, where, snippet) for each plant its host's configuration applies to
    (or, with `exempt`, does not apply to)."""
    return [
        pytest.param(host, config, *planted, id=f"{_host_id(host, config)}-{planted[0]}-{number}")
        for host, config, exempt_plants in HOSTS
        for number, planted in enumerate(PLANTS)
        if (planted[0] in exempt_plants or planted[2] in exempt_plants) == exempt
    ]


@pytest.mark.parametrize(
    ("host", "config"),
    [pytest.param(host, config, id=_host_id(host, config)) for host, config, _ in HOSTS],
)
def test_hosts_are_clean(host, config):
    assert _audit(host.read_text(), host, config) == []


@pytest.mark.parametrize(("host", "config", "code", "where", "snippet"), _cases(exempt=False))
def test_planted_violation_is_caught(host, config, code: str, where: str, snippet: str):
    assert code in _new_codes(host, config, where, snippet)


@pytest.mark.parametrize(("host", "config", "code", "where", "snippet"), _cases(exempt=True))
def test_a_plant_its_configuration_exempts_stays_quiet(host, config, code, where, snippet):
    assert code not in _new_codes(host, config, where, snippet)
