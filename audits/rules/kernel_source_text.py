"""LWA003: whole kernels written as text, in one string or assembled from many."""

from __future__ import annotations

import libcst as cst

from audits.kernel_text import describe, kernel_markers, looks_like_kernel
from audits.rules.base import Rule, RuleInfo
from audits.syntax import STRING_NODES, call_arguments, callee_name, string_text, string_value

_DECODERS = {
    "b64decode", "b32decode", "b16decode", "b85decode", "a85decode", "urlsafe_b64decode",
    "standard_b64decode", "decodebytes", "decompress", "fromhex", "unhexlify", "a2b_base64",
    "a2b_hex",
}  # fmt: skip
_CODECS = {"rot13", "rot_13", "base64", "base_64", "hex", "zlib", "bz2"}
_EMITTING_CALLS = {"append", "extend", "write", "writelines", "emit", "line", "add_line", "print"}
MIN_HIDDEN_LENGTH = 24
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
        if isinstance(node.operator, cst.Add) and string_text(node) is not None:
            self._judge(node)

    def visit_List(self, node: cst.List) -> None:
        self._judge_lines(node)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._judge_lines(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._reads_docstrings |= node.value == "__doc__"

    def visit_Call(self, node: cst.Call) -> None:
        callee = callee_name(node)
        arguments = call_arguments(node)
        if callee in _DECODERS or (callee == "decode" and self._codec_argument(arguments)):
            hidden = string_value(arguments[0]) if arguments else None
            if hidden is not None and len(hidden) >= MIN_HIDDEN_LENGTH:
                self.report(node, f"decodes a hidden text blob with {callee}()", callee)
        if callee in _EMITTING_CALLS and self._emitted:
            self._emitted[-1].extend(_texts(arguments))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._emitted and isinstance(node.operator, cst.AddAssign):
            self._emitted[-1].extend(_texts([node.value]))

    def visit_Yield(self, node: cst.Yield) -> None:
        if self._emitted and isinstance(node.value, cst.BaseExpression):
            self._emitted[-1].extend(_texts([node.value]))

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
        self._mark_parts(node)
        text = string_text(node)
        markers = looks_like_kernel(text) if text else frozenset()
        if not markers:
            return
        if self.context.is_docstring(node):
            self._docstring_kernels.append((node, markers))
        else:
            self._report_kernel(node, markers, "string")

    def _judge_lines(self, node: cst.BaseExpression) -> None:
        if id(node) in self._judged or not isinstance(node, (cst.List, cst.Tuple)):
            return
        self._mark_parts(node)
        markers = looks_like_kernel("\n".join(_texts([node])))
        if markers:
            self._report_kernel(node, markers, "list of lines")

    def _report_kernel(self, node: cst.CSTNode, markers: frozenset[str], form: str) -> None:
        summary = describe(markers)
        self.report(node, f"kernel source written as a {form} ({summary})", summary)

    def _mark_parts(self, node: cst.CSTNode) -> None:
        self._judged.add(id(node))
        if isinstance(node, (cst.ConcatenatedString, cst.BinaryOperation)):
            self._mark_parts(node.left)
            self._mark_parts(node.right)
        elif isinstance(node, (cst.List, cst.Tuple)):
            for element in node.elements:
                self._mark_parts(element.value)

    @staticmethod
    def _codec_argument(arguments: list[cst.BaseExpression]) -> bool:
        codec = string_value(arguments[1]) if len(arguments) >= 2 else None
        return codec is not None and codec.lower() in _CODECS


def _texts(nodes) -> list[str]:
    """Literal texts of string expressions, lists and tuples among `nodes`."""
    texts = []
    for node in nodes:
        if isinstance(node, (cst.List, cst.Tuple)):
            texts.extend(_texts(element.value for element in node.elements))
        elif isinstance(node, (*STRING_NODES, cst.BinaryOperation)):
            text = string_text(node)
            if text is not None:
                texts.append(text)
    return texts
