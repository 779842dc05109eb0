"""LWA004: template engines, template files and kernel source files read by compiler code.

`string.Template` is judged by its text: one that reads as code (kernel markers, several lines,
`;`, `{`, `}` or `=`), that is nothing but placeholders, or that the audit cannot read is
flagged; a message (`Template("cannot lower $op: ...")`) is not a kernel template, whatever
builds it."""

from __future__ import annotations

import re

import libcst as cst

from audits.kernel_text import kernel_markers
from audits.rules.base import Rule, RuleInfo
from audits.rules.batch import descendants
from audits.syntax import STRING_NODES, call_arguments, callee_name, dotted_name

_ENGINES = {"jinja2", "jinja", "mako", "chevron", "pystache", "Cheetah", "genshi", "airspeed"}
_ENGINE_MODULES = {"django.template", "tornado.template"}
_ENGINE_CALLS = {
    "Template", "FileSystemLoader", "PackageLoader", "DictLoader", "ChoiceLoader", "get_template",
}  # fmt: skip
_READ_CALLS = {"open", "read_text", "read_bytes", "glob", "rglob", "iglob", "iterdir"}
# Package-data APIs: files shipped inside the code's own package.
_PACKAGE_DATA_CALLS = {
    "get_data", "read_binary", "open_text", "open_binary", "resource_string", "resource_stream",
    "resource_filename",
}  # fmt: skip
_RESOURCE_FILES = {"files", "resources.files", "importlib.resources.files", "as_file"}
_TEMPLATE_FILE = re.compile(r"\.(?:tpl|tmpl|jinja2?|j2|mako|mustache|hbs|template)$")
_KERNEL_FILE = re.compile(r"\.(?:cu|cuh|ptx|cl|metal|hip|cubin|fatbin|triton|tir)(?:\.\w+)?$")
_WRITE_MODE = re.compile(r"[wax+]")
_CODE_LIKE = re.compile(r"[\n;{}=]")
_PLACEHOLDER = re.compile(r"\$(?:\w+|\{\w+\})")
# Files a package ships that hold data or documents, not code: reading them is not a template.
_DATA_FILE = re.compile(
    r"(?:^|/)(?:VERSION|LICENSE|README|COPYING|NOTICE)(?:\.\w+)?$"
    r"|\.(?:txt|json|toml|ya?ml|md|rst|csv|cfg|ini|png|svg|ico|jpe?g|gif|css)$"
)


class KernelTemplateLoading(Rule):
    info = RuleInfo(
        code="LWA004",
        name="kernel-template-loading",
        summary="a template engine, a template file or a kernel source file in compiler code",
        fix=(
            "generate code only by walking the shared SSA and spelling each op from the target's "
            "table; a template or a kernel file bypasses the IR, so add the missing generic op, "
            "pass or target capability instead"
        ),
    )
    must_flag = (
        "import jinja2",
        "from jinja2 import Environment, FileSystemLoader",
        "import string\nKERNEL = string.Template('x = $y')",
        "from string import Template\nK = Template('__global__ void $name(float* x)')",
        "from string import Template as T\ndef body(text):\n    return T(text)",
        "def load():\n    return open('kernels/matmul.cu.tpl').read()",
        "from pathlib import Path\nSRC = (Path(__file__).parent / 'mm.cu').read_text()",
        "import pkgutil\nSRC = pkgutil.get_data(__name__, 'kernels/softmax.cuh')",
        "TEMPLATE_DIR = 'templates/kernel.j2'",
        "def sources(folder):\n    return sorted(folder.glob('*.cu'))",
        "import importlib\nengine = importlib.import_module('jinja2')",
        "from pathlib import Path\nHERE = Path(__file__).parent / 'kernels'\n"
        "def load(name):\n    return (HERE / name).read_text()",
        "from importlib import resources\nSRC = resources.files('pkg').joinpath('k').read_text()",
    )
    must_pass = (
        "from pathlib import Path\n"
        "def write(folder: Path, source: str):\n    (folder / 'kernel.cu').write_text(source)",
        "def save(path, source):\n    with open(path / 'kernel.cu', 'w') as out:\n"
        "        out.write(source)",
        "import string\nLETTERS = string.ascii_letters",
        "from pathlib import Path\nROOT = Path(__file__).parent\n"
        "def version():\n    return (ROOT / 'VERSION').read_text()",
        "def read(path):\n    return open(path).read()",
        "CONFIG = 'targets.toml'",
        "from string import Template\nMESSAGE = Template('cannot lower $op: add a generic pass')\n"
        "def fail(op):\n    raise ValueError(MESSAGE.substitute(op=op))",
    )

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._flag_engine_module(node, dotted_name(alias.name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module else None
        if module == "string" and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.name.value == "Template":  # judged where it is called, by its text
                    self._string_templates.add(
                        (alias.asname.name if alias.asname else alias.name).value
                    )
            return
        self._flag_engine_module(node, module)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._string_templates: set[str] = {"string.Template"}  # names bound to it
        # names bound to paths next to the code -> the strings their paths are built from
        self._package_paths: dict[str, list[str]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._next_to_code(node.value):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self._package_paths[target.target.value] = self._strings_under(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        callee = callee_name(node)
        arguments = call_arguments(node)
        dotted = dotted_name(node.func) or ""
        root = dotted.split(".")[0]
        if dotted in self._string_templates:
            self._flag_string_template(node, arguments)
        elif callee in _ENGINE_CALLS or root in _ENGINES:
            self.report(node, f"uses a template API ({callee})", callee)
        elif callee in ("import_module", "__import__") and arguments:
            self._flag_engine_module(node, self.context.evaluator.template(arguments[0]))
        elif callee in _PACKAGE_DATA_CALLS:
            self.report(node, f"reads a file shipped with the code ({callee})", callee)
        elif callee in _READ_CALLS and not self._writes(node, callee):
            self._flag_read(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._flag_template_name(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._flag_template_name(node)

    def _flag_string_template(self, node: cst.Call, arguments) -> None:
        text = self.context.evaluator.template(arguments[0]) if arguments else None
        if text is None:
            self.report(node, "builds a string.Template from text it cannot read", "Template")
        elif (
            kernel_markers(text)
            or _CODE_LIKE.search(text)
            or not _PLACEHOLDER.sub("", text).strip()
        ):
            self.report(node, f"builds a string.Template of code {text[:60]!r}", "Template")

    def _flag_read(self, node: cst.Call) -> None:
        texts = self._strings_under(node)
        for text in texts:
            if _KERNEL_FILE.search(text) or _TEMPLATE_FILE.search(text):
                self.report(node, f"reads kernel or template file {text!r}", text)
                return
        texts += [text for name in _names_under(node) for text in self._package_paths.get(name, ())]
        if self._next_to_code(node) and not any(_DATA_FILE.search(text) for text in texts):
            self.report(node, "reads a file shipped next to the code", "package file")

    def _strings_under(self, node: cst.CSTNode) -> list[str]:
        """Texts of the strings inside an expression (a call, its receiver chain, its args); a
        string expression gives its whole text, with `{}` for parts computed at run time."""
        texts = []

        def into(part: cst.CSTNode) -> bool:
            text = self.context.evaluator.template(part)
            if text is not None:
                texts.append(text)
            return text is None and not isinstance(part, STRING_NODES)

        for _ in descendants(node, into):
            pass
        return texts

    def _next_to_code(self, node: cst.CSTNode) -> bool:
        """Does the expression locate something by the code's own place (`__file__`, resources)?"""
        for part in descendants(node):
            if isinstance(part, cst.Name):
                if part.value == "__file__" or part.value in self._package_paths:
                    return True
            elif isinstance(part, cst.Call) and dotted_name(part.func) in _RESOURCE_FILES:
                return True
        return False

    def _flag_template_name(self, node: cst.BaseExpression) -> None:
        if self.context.is_prose(node):
            return
        text = self.context.evaluator.template(node)
        if text and len(text) <= 200 and "\n" not in text and _TEMPLATE_FILE.search(text):
            self.report(node, f"names a template file {text!r}", text)

    def _flag_engine_module(self, node: cst.CSTNode, module: str | None) -> None:
        if module and (module.split(".")[0] in _ENGINES or module in _ENGINE_MODULES):
            self.report(node, f"uses template engine {module}", module)

    def _writes(self, node: cst.Call, callee: str) -> bool:
        if callee != "open":
            return False
        mode_position = 0 if isinstance(node.func, cst.Attribute) else 1
        positional = [argument.value for argument in node.args if argument.keyword is None]
        keyword = [a.value for a in node.args if a.keyword and a.keyword.value == "mode"]
        mode = (keyword or positional[mode_position : mode_position + 1] or [None])[0]
        text = self.context.evaluator.template(mode) if mode is not None else None
        return bool(text and _WRITE_MODE.search(text))


def _names_under(node: cst.CSTNode) -> list[str]:
    return [part.value for part in descendants(node) if isinstance(part, cst.Name)]
