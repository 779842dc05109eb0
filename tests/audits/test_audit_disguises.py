"""What a model might write to slip an operator past the audit, and the code that catches it."""

from __future__ import annotations

import zlib

import pytest
from audit_support import audit_snippet, codes

HIDDEN_CUDA = "__global__ void k(float* x) { x[threadIdx.x] = 0; }"

DISGUISES = [
    # operator-named entry points
    ("LWA001", "def lower_mm_v2(kernel):\n    return kernel"),
    ("LWA001", "def _fast_path_for_GEMM(kernel):\n    return kernel"),
    ("LWA001", "class SoftMaxLowering:\n    pass"),
    ("LWA001", "def lowerflashattn(kernel):\n    return kernel"),
    ("LWA001", "def lower_mаtmul(kernel):\n    return kernel"),  # Cyrillic "а"
    ("LWA001", "class Emitter:\n    emit_conv = lambda self, op: op"),
    # dispatch on the operator's name
    ("LWA002", 'TEMPLATES = {"matmul": "...", "softmax": "..."}'),
    ("LWA002", "def f(self, op):\n    return getattr(self, 'emit_' + op)()"),
    ("LWA002", "def f(self, op):\n    return getattr(self, 'emit_{}'.format(op.name))()"),
    ("LWA002", "def f(self, op):\n    return getattr(self, '_'.join(['emit', op.name]))()"),
    ("LWA002", 'def f(op):\n    match op:\n        case "softmax":\n            return 1'),
    ("LWA002", 'def f(op):\n    match op.kind:\n        case "bmm" | "mm":\n            return 1'),
    ("LWA002", 'def f(name):\n    if name.startswith("attn"):\n        return 1'),
    ("LWA002", 'def f(name):\n    return name.endswith("_mm")'),
    ("LWA002", 'def f(name):\n    return name.find("attn") >= 0'),
    ("LWA002", "from enum import Enum\nclass Kind(Enum):\n    MATMUL = 1"),
    ("LWA002", "from enum import IntEnum\nclass Kind(IntEnum):\n    FUSED = 'flash_attention'"),
    ("LWA002", '@register("flash_attention")\ndef lower(kernel):\n    return kernel'),
    ("LWA002", '@LOWERINGS.register(name="rms_norm")\ndef lower(kernel):\n    return kernel'),
    ("LWA002", 'KIND = "matmul"\ndef f(x):\n    if x == KIND:\n        return 1'),
    ("LWA002", 'class Ops:\n    A = "softmax"\ndef f(x):\n    return x == Ops.A'),
    ("LWA002", 'def f(op):\n    return op.name in frozenset({"gelu", "silu"})'),
    ("LWA002", 'def f(op):\n    return op.name == "soft" "max"'),
    ("LWA002", 'def f(op):\n    return op.name.lower() == "MatMul".lower()'),
    ("LWA002", "def f(op):\n    return op.name.__eq__('softmax')"),
    ("LWA002", "def f(op):\n    return op.name == ''.join(['s', 'o', 'f', 't', 'max'])"),
    ("LWA002", "def f(op):\n    return op.name == b'matmul'.decode()"),
    ("LWA002", 'def f(op):\n    return op.name == "lumtam"[::-1]'),
    ("LWA002", "import operator\ndef f(op):\n    return operator.eq(op.name, 'softmax')"),
    ("LWA002", "def f(op):\n    return {'rope': 1}[op.name]"),
    ("LWA002", "def f(op):\n    return dict(matmul=1, bmm=2)[op.name]"),
    ("LWA002", "def f(op):\n    return isinstance(op, MatmulOp)"),
    ("LWA002", "def f(self, op):\n    return self.__dict__['lower_' + op.name]"),
    ("LWA002", "import fnmatch\ndef f(name):\n    return fnmatch.fnmatch(name, '*attn*')"),
    # kernels as text
    (
        "LWA003",
        'CUDA = r"""\nextern "C" __global__ void add(const float* __restrict__ x, float* y) {\n'
        '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  y[i] = x[i];\n}\n"""',
    ),
    (
        "LWA003",
        "def source(block):\n    return f'''\n@triton.jit\ndef kernel(x, y):\n"
        "    offs = tl.program_id(0) * {block} + tl.arange(0, {block})\n"
        "    tl.store(y + offs, tl.load(x + offs))\n'''",
    ),
    (
        "LWA003",
        "KERNEL = '''\n@triton.jit\ndef k(x):\n    tl.store(x, tl.exp(tl.load(x)))\n'''\n"
        "SOURCE = KERNEL.format(name='k')",
    ),
    (
        "LWA003",
        "SOURCE = ('@triton.jit\\n'\n          'def k(x):\\n'\n"
        "          '    tl.store(x, tl.load(x) + tl.program_id(0))\\n')",
    ),
    (
        "LWA003",
        f"import zlib\nSRC = zlib.decompress({zlib.compress(HIDDEN_CUDA.encode())!r})",
    ),
    (
        "LWA003",
        "import codecs\nSRC = codecs.decode('__tybony__ ibvq x(sybng* n) { n[guernqVqk.k] = 0; }',"
        " 'rot13')",
    ),
    (
        "LWA003",
        'def k():\n    """\n    @triton.jit\n    def k(x):\n        tl.store(x, tl.load(x))\n'
        '        tl.program_id(0)\n    """\nSOURCE = k.__doc__',
    ),
    # the kernel languages of other compilers that reuse the audit: OpenCL C, Metal, WGSL
    (
        "LWA003",
        'OPENCL = """__kernel void add(__global const float* x, __global float* y) {\n'
        '  int i = get_global_id(0);\n  y[i] = x[i];\n}"""',
    ),
    (
        "LWA003",
        'METAL = """kernel void add(device const float* x [[buffer(0)]],\n'
        "  device float* y [[buffer(1)]], uint i [[thread_position_in_grid]]) {\n"
        '  y[i] = x[i];\n}"""',
    ),
    (
        "LWA003",
        'WGSL = """@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n'
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n"
        '  y[id.x] = 0.0;\n}"""',
    ),
    # templates and kernel files
    ("LWA004", "import jinja2\nKERNEL = jinja2.Template('{{ name }}')"),
    ("LWA004", "import string\nKERNEL = string.Template('$name')"),
    ("LWA004", "from mako.template import Template"),
    ("LWA004", "def load(root):\n    return (root / 'kernels' / 'matmul.cu.tpl').read_text()"),
    (
        "LWA004",
        "def load(root):\n    return open(root + '/attention.cuh', encoding='utf-8').read()",
    ),
    ("LWA004", "import importlib.resources\nSRC = importlib.resources.read_text('k', 'mm.ptx')"),
    # op names outside the closed registry
    ("LWA005", 'def fuse(b, q, k, v):\n    return b.create("nt.flash_attention", q, k, v)'),
    ("LWA005", 'FUSED = "fused." + "attention"'),
    ("LWA005", 'def f(b, x):\n    return b.create("math.lgamma", x)'),
    ("LWA005", 'def f(b, x):\n    return b.create("linalg.matmul", x)'),
    # backend-name flags in shared code
    ("LWA006", 'def f(target):\n    if target.name == "cuda":\n        return 1'),
    ("LWA006", 'def f(target):\n    return target.name in ("cuda", "tilelang")'),
    ("LWA006", "def f(target):\n    return isinstance(target, CudaTarget)"),
    ("LWA006", "def f(target):\n    return 1 if target.is_tvm else 2"),
    ("LWA006", "def f(target):\n    return target.is_cuda() and 1"),
    ("LWA006", 'def f(target):\n    return "triton" in str(target)'),
    ("LWA006", 'def f(target):\n    return hasattr(target, "cuda_arch")'),
    ("LWA006", "import triton"),
]


@pytest.mark.parametrize(("code", "source"), DISGUISES)
def test_disguise_is_caught(code: str, source: str):
    assert code in codes(audit_snippet(source)), source


def test_imported_constant_resolves_across_modules(tmp_path):
    from audits.config import AuditConfig
    from audits.engine import audit_project

    (tmp_path / "kinds.py").write_text('ATTENTION = "flash_attention"\n')
    (tmp_path / "lower.py").write_text(
        "from kinds import ATTENTION\n\ndef f(op):\n    return op.name == ATTENTION\n"
    )
    (tmp_path / "emit.py").write_text(
        "import kinds\n\ndef f(op):\n    return op.name == kinds.ATTENTION\n"
    )
    report = audit_project(AuditConfig(root=tmp_path))
    assert [(f.path, f.code) for f in report.findings] == [
        ("emit.py", "LWA002"),
        ("lower.py", "LWA002"),
    ]
    assert "ATTENTION = 'flash_attention'" in report.findings[1].message


def test_backend_specific_folders_are_exempt_from_backend_flags():
    source = 'def f(target):\n    return target.name == "cuda"'
    table = {"shared-paths": ["compiler/passes"]}
    assert "LWA006" in codes(audit_snippet(source, "compiler/passes/x.py", **table))
    assert "LWA006" not in codes(audit_snippet(source, "compiler/backends/cuda/x.py", **table))
