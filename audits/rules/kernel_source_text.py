"""LWA003: whole kernels written as text, in one string or assembled from many, or hidden.

Text is judged by its evaluated value: a join of character codes, a format of constants, or a
blob that base64, hex, zlib or a codec decodes reads as the kernel it spells. Hidden text needs
only one kernel marker: nothing else has a reason to encode `__global__` or `tl.load`. Decoded
Python source is audited as a module of its own.
"""

from __future__ import annotations

import re

import libcst as cst

from audits.evaluation import as_text, excerpt
from audits.evaluation.decoders import DECODING_CALLS
from audits.kernel_text import describe, kernel_markers, looks_like_kernel
from audits.rules.base import Rule, RuleInfo
from audits.rules.batch import descendants
from audits.syntax import STRING_NODES, call_arguments, callee_name

_EMITTING_CALLS = {"append", "extend", "write", "writelines", "emit", "line", "add_line", "print"}
# Calls that build text from their receiver and arguments: their value is judged as a whole.
_BUILDING_CALLS = {"join", "format", "replace", "translate", "str", "bytes"}
# Decoded text that holds statements like these is Python source, audited as a module.
_PYTHON_SOURCE = re.compile(r"^[ \t]*(?:def|class|import|from|async|@)\b", re.MULTILINE)
MIN_ASSEMBLED_MARKERS = 4
MIN_ASSEMBLED_STATEMENTS = 3


class KernelSourceText(Rule):
    info = RuleInfo(
        code="LWA003",
        name="kernel-source-text",
        summary="kernel source written as text: a string, f-string, list of lines or hidden blob",
        fix=(
            "emit kernels only from the shared SSA: the emitter spells each IR op from the "
            "target's spelling table; add a generic op, pass or target capability instead of "
            "writing kernel text"
        ),
    )
    must_flag = (
        'KERNEL = """\n__global__ void k(float* x) {\n'
        '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  x[i] = 0;\n}\n"""',
        "def render(name, block):\n    return f'''\n@triton.jit\ndef {name}(x_ptr, n):\n"
        "    pid = tl.program_id(0)\n    offs = pid * {block} + tl.arange(0, {block})\n"
        "    tl.store(x_ptr + offs, tl.load(x_ptr + offs))\n'''",
        "SRC = '__global__ void k(float* a){int i=threadIdx.x+blockIdx.x*blockDim.x; a[i]=0;}'",
        'LINES = [\n    "@triton.jit",\n    "def k(x):",\n    "    pid = tl.program_id(0)",\n'
        '    "    tl.store(x, tl.load(x))",\n]',
        'SRC = "\\n".join(["@T.prim_func", "def main(A: T.Buffer((128,), \'float32\')):",'
        ' "    for i in T.serial(128):", "        A[i] = T.float32(0)"])',
        "import base64\nSRC = base64.b64decode('X19nbG9iYWxfXyB2b2lkIGsoKSB7fQ==')",
        "CODES = (95, 95, 103, 108, 111, 98, 97, 108, 95, 95)\n"
        "SRC = ''.join(map(chr, CODES)) + ' void k(float* x) { x[blockIdx.x * blockDim.x] = 0; }'",
        "import zlib, base64\nSRC = zlib.decompress(base64.b64decode("
        "'eJxzKCnKLMnP08vKLOFKSU1TyNao0LTiUgCCkhy94pL8olSNCh0QOyc/MQUop8kFAJxPD3g='))",
        "def emit():\n    return bytes.fromhex('74 6c 2e 6c 6f 61 64 28 78 29').decode()",
        "def emit(out, n):\n    out.append('@triton.jit')\n    out.append('def k(x, y):')\n"
        "    out.append('    p = tl.program_id(0)')\n    out.append('    v = tl.load(x + p)')\n"
        "    out.append('    tl.store(y + p, tl.exp(v))')",
        "KERNEL = '''\n{% for i in range(n) %}\n__global__ void k{{ i }}(float* x)"
        " { x[threadIdx.x] = 0; }\n{% endfor %}\n'''",
    )
    must_pass = (
        'SPELLING = {"mem.load": "tl.load({ptr}, mask={mask}, other={other})"}',
        'SPELLING = {"index.program_id": "tl.program_id({axis})", "math.exp": "tl.exp({0})"}',
        "HEADER = '@triton.jit\\ndef {name}({params}):'",
        "PROLOGUE = 'extern \"C\" __global__ void {name}({params}) {{'",
        'GLOBAL_ID = "blockIdx.x * blockDim.x + threadIdx.x"',
        "def emit(lines, op, table):\n    lines.append(table[op.name].format(*op.operands))",
        '"""A module docstring that mentions __global__, threadIdx and tl.load in prose."""',
        "import base64\nTOKEN = base64.b64decode('aGVsbG8sIHdvcmxkOiBhIGdyZWV0aW5n').decode()",
        "def path(*parts):\n    return '/'.join(('kernels', 'cache') + parts)",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._judged: set[int] = set()
        self._docstring_kernels: list[tuple[cst.CSTNode, frozenset[str]]] = []
        self._reads_docstrings = False
        self._emitted: list[list[str]] = []

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._judge(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        self._judge(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._judge(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, (cst.Add, cst.Modulo)):
            self._judge(node)

    def visit_List(self, node: cst.List) -> None:
        self._judge_lines(node)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._judge_lines(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._reads_docstrings |= node.value == "__doc__"

    def visit_Call(self, node: cst.Call) -> None:
        callee = callee_name(node)
        if callee in DECODING_CALLS:
            self._judge_decoded(node, callee)
        elif callee in _BUILDING_CALLS:
            self._judge(node)
        if callee in _EMITTING_CALLS and self._emitted:
            self._emitted[-1].extend(self._texts(call_arguments(node)))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._emitted and isinstance(node.operator, cst.AddAssign):
            self._emitted[-1].extend(self._texts([node.value]))

    def visit_Yield(self, node: cst.Yield) -> None:
        if self._emitted and isinstance(node.value, cst.BaseExpression):
            self._emitted[-1].extend(self._texts([node.value]))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._emitted.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        texts = self._emitted.pop()
        marked = [markers for markers in map(kernel_markers, texts) if markers]
        markers = frozenset().union(*marked)
        if len(markers) >= MIN_ASSEMBLED_MARKERS and len(marked) >= MIN_ASSEMBLED_STATEMENTS:
            what = f"assembles kernel source line by line ({describe(markers)})"
            self.report(original_node.name, what, original_node.name.value)

    def leave_Module(self, original_node: cst.Module) -> None:
        if self._reads_docstrings:
            for node, markers in self._docstring_kernels:
                self._report_kernel(node, markers, "docstring read through __doc__")

    def _judge(self, node: cst.BaseExpression) -> None:
        if id(node) in self._judged:
            return
        self._mark_pieces(node)
        text = self.context.evaluator.template(node)
        markers = looks_like_kernel(text) if text else frozenset()
        if not markers:
            return
        self._mark_parts(node)
        if self.context.is_docstring(node):
            self._docstring_kernels.append((node, markers))
        elif not self.context.is_prose(node):
            self._report_kernel(node, markers, "string")

    def _judge_decoded(self, node: cst.Call, callee: str) -> None:
        """Text that a decoder recovers from a literal is audited as the text it is."""
        if id(node) in self._judged:
            return
        text = as_text(self.context.evaluator.value(node))
        if not text:
            return
        self._mark_parts(node)
        markers = kernel_markers(text)
        if markers:
            summary = describe(markers)
            what = f"kernel source hidden in encoded text ({summary}), decoded: {excerpt(text)!r}"
            self.report(node, what, summary, self.context.evaluator.origin(node))
        if _PYTHON_SOURCE.search(text):
            self.context.embed(node, text, f"decoded by {callee}()")

    def _judge_lines(self, node: cst.BaseExpression) -> None:
        if id(node) in self._judged or not isinstance(node, (cst.List, cst.Tuple)):
            return
        self._mark_pieces(node)
        lines = [line for line in self._texts([node]) if _is_code_line(line)]
        markers = looks_like_kernel("\n".join(lines))
        if markers:
            self._mark_parts(node)
            self._report_kernel(node, markers, "list of lines")

    def _report_kernel(self, node: cst.CSTNode, markers: frozenset[str], form: str) -> None:
        summary = describe(markers)
        origin = self.context.evaluator.origin(node)
        self.report(node, f"kernel source written as a {form} ({summary})", summary, origin)

    def _mark_pieces(self, node: cst.CSTNode) -> None:
        """The pieces of a text (`a + b`, `"a" "b"`, list items) are judged with it, not alone."""
        for part in descendants(node, into=_has_pieces):
            self._judged.add(id(part))

    def _mark_parts(self, node: cst.CSTNode) -> None:
        """The text a finding covers is judged once: not again in the pieces it is built from."""
        self._judged.update(id(part) for part in descendants(node))

    def _texts(self, nodes) -> list[str]:
        """Texts of string expressions, lists and tuples among `nodes`."""
        texts = []
        for node in nodes:
            if isinstance(node, (cst.List, cst.Tuple)):
                texts.extend(self._texts(element.value for element in node.elements))
            elif isinstance(node, (*STRING_NODES, cst.BinaryOperation)):
                text = self.context.evaluator.template(node)
                if text is not None:
                    texts.append(text)
        return texts


def _is_code_line(text: str) -> bool:
    """A line of code, not a bare marker (`("__global__", "#include")` lists what to look for)."""
    return text.strip() not in kernel_markers(text)


def _has_pieces(node: cst.CSTNode) -> bool:
    return isinstance(
        node, (cst.ConcatenatedString, cst.BinaryOperation, cst.List, cst.Tuple, cst.Element)
    )
