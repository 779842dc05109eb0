"""LWA007: literals the audit cannot read that the code runs, decodes, or writes out and loads.

A compiler has no reason to carry data it cannot show: bytecode for `marshal.loads`, a blob that
does not decode (or inflates past the audit's cap), text passed through a home-made decoder into
`exec`, a binary written to a file that the same module then loads as a library or module. Python
source that the code runs and that the audit can read is audited as a module instead.
"""

from __future__ import annotations

import libcst as cst

from audits.evaluation import Opaque, as_text
from audits.evaluation.decoders import DECODING_CALLS
from audits.rules.base import Rule, RuleInfo
from audits.syntax import call_arguments, callee_name, dotted_name

_RUNNING_CALLS = {"exec", "eval", "compile", "CodeType", "FunctionType"}
_UNPICKLING_MODULES = {"marshal", "pickle", "_pickle", "dill", "cloudpickle"}
_WRITING_CALLS = {"write", "write_bytes", "write_text", "writelines"}
_LOADING_CALLS = {
    "import_module", "spec_from_file_location", "module_from_spec", "exec_module", "load_module",
    "run_path", "run_module", "CDLL", "PyDLL", "WinDLL", "LoadLibrary", "load_library", "dlopen",
    "cuModuleLoad", "cuModuleLoadData", "load_inline",
}  # fmt: skip
MIN_OPAQUE_BYTES = 16


class OpaqueCodeBlob(Rule):
    info = RuleInfo(
        code="LWA007",
        name="opaque-code-blob",
        summary="a literal the audit cannot read that the code runs, decodes, or writes and loads",
        fix=(
            "keep what the compiler runs readable: generate kernels and code from the shared SSA "
            "and delete the blob; encoding or compiling code ahead of time hides it from review "
            "and from the audit"
        ),
    )
    must_flag = (
        "import marshal\nexec(marshal.loads(b'\\xe3\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
        "\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\xf3\\n\\x00'))",
        "import zlib\nSRC = zlib.decompress(b'this is not zlib data at all, only bytes')",
        "import base64\nSRC = base64.b64decode('!!not*base64 at all, sorry!!')",
        "def run(unscramble):\n"
        "    exec(unscramble('Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u'))",
        "import ctypes\ndef load(path):\n    path.write_bytes(b'\\x7fELF\\x02\\x01\\x01\\x00\\x00"
        "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x03\\x00>\\x00\\x01\\x00\\x00\\x00')\n"
        "    return ctypes.CDLL(str(path))",
        "KERNEL = b'\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0a\\x0b\\x0c\\x0d\\x0e"
        "\\x0f\\x10\\x11'\ndef run():\n    exec(KERNEL)",
    )
    must_pass = (
        "import base64\nICON = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAA"
        "DUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==')",
        "def run(tree, namespace):\n    exec(compile(tree, '<generated>', 'exec'), namespace)",
        'import json\nTABLE = json.loads(b\'{"a": 1, "b": 2, "c": [1, 2, 3]}\')',
        "def save(path, data):\n"
        "    path.write_bytes(b'\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR\\x00\\x00')",
        "def run(namespace):\n    exec('x = 1 + 2', namespace)",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._reported: set[int] = set()  # each opaque value once, where it is first used
        self._writes: list[tuple[cst.Call, str]] = []
        self._loads = False

    def visit_Call(self, node: cst.Call) -> None:
        callee = callee_name(node)
        dotted = dotted_name(node.func) or ""
        arguments = call_arguments(node)
        if (_runs(callee, dotted) or _unpickles(dotted)) and arguments:
            self._judge_run(node, callee, dotted, arguments[0])
        elif callee in DECODING_CALLS:
            value = self.context.evaluator.value(node)
            if isinstance(value, Opaque):
                self._flag(node, value, f"decodes {value.why} with {callee}()")
        elif callee in _WRITING_CALLS and arguments:
            why = self._unreadable(arguments[0])
            if why:
                self._writes.append((node, why))
        elif callee in _LOADING_CALLS:
            self._loads = True

    def leave_Module(self, original_node: cst.Module) -> None:
        if self._loads:
            for node, why in self._writes:
                self.report(node, f"writes {why} to a file that the module loads", why)

    def _judge_run(self, node: cst.Call, callee: str, dotted: str, argument) -> None:
        value = self.context.evaluator.value(argument)
        if isinstance(value, Opaque):
            self._flag(node, value, f"runs {value.why} with {callee}()")
            return
        why = self._unreadable(argument)
        if why or (_unpickles(dotted) and isinstance(value, bytes)):
            self._flag(node, value, f"runs {why or 'serialized code'} with {dotted or callee}()")
        elif as_text(value):
            self.context.embed(node, as_text(value), f"run by {callee}()")

    def _unreadable(self, argument) -> str | None:
        value = self.context.evaluator.value(argument)
        if isinstance(value, Opaque):
            return value.why
        if isinstance(value, bytes) and len(value) >= MIN_OPAQUE_BYTES and as_text(value) is None:
            return f"{len(value)} bytes the audit cannot read"
        return None

    def _flag(self, node: cst.Call, value, what: str) -> None:
        if id(value) not in self._reported:
            self._reported.add(id(value))
            self.report(node, what, what.split(" with ")[0])


def _runs(callee: str | None, dotted: str) -> bool:
    """The builtins exec, eval and compile (not `re.compile`), and code object constructors."""
    if callee in ("CodeType", "FunctionType"):
        return True
    return callee in _RUNNING_CALLS and dotted in (callee, f"builtins.{callee}")


def _unpickles(dotted: str) -> bool:
    parts = dotted.split(".")
    return len(parts) == 2 and parts[0] in _UNPICKLING_MODULES and parts[1] == "loads"
