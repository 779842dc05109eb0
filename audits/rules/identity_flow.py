"""LWA008: a value that flows from an identity source into a decision or into built text.

Lowering that is generic decides from the IR and the target. Where it reads who a kernel is instead
— a function's `__name__`, `__qualname__`, `__doc__` or `__annotations__`, parameter names through
`inspect`, the source through `inspect`/`linecache`, a file's contents, a directory listing, an
environment variable, a kernel's name (`kernel.name`, `kernel_name`; emitted text may spell it, as
the function it names) — and that value reaches a condition, a `match`, a lookup key, `getattr`, or
text it builds, the kernel's identity decides what it gets. The vocabulary rules see the words; this
rule follows the value, whatever the words.

The flow is followed within a module: through assignments (in order; a loop's body twice), `with ...
as`, `for` targets, and functions of the module whose return value carries a source. Text built for
an exception, a warning or a log line is a message, not emitted code, and `if <check>: raise` is a
refusal, not a different lowering. What the code's own structure says is not who a kernel is: the
names and annotations of what it imports by a constant name (its own modules and functions) and of
`self`/`cls`. A front end reads the program's source by design, a runtime its caches and
environment: configure such folders out with an override.
"""

from __future__ import annotations

import libcst as cst

from audits.rules.base import Rule, RuleInfo
from audits.rules.batch import child_nodes, descendants
from audits.syntax import dotted_name

_SOURCE_ATTRIBUTES = {
    "__name__", "__qualname__", "__doc__", "__annotations__", "__module__", "__file__",
    "__code__", "__defaults__", "__kwdefaults__", "co_varnames", "co_name", "co_filename",
}  # fmt: skip
_SOURCE_CALLS = {
    "inspect.getsource", "inspect.getsourcelines", "inspect.getsourcefile", "inspect.getfile",
    "inspect.signature", "inspect.getfullargspec", "inspect.getdoc", "inspect.getcomments",
    "inspect.getmembers", "inspect.getmodule", "linecache.getline", "linecache.getlines",
    "typing.get_type_hints", "get_type_hints", "getsource", "getsourcelines", "signature",
    "os.getenv", "os.environ.get", "os.listdir", "os.scandir", "os.walk", "glob.glob",
    "glob.iglob", "open", "io.open",
}  # fmt: skip
_SOURCE_METHODS = {"read_text", "read_bytes", "iterdir", "glob", "rglob", "getenv"}
_SOURCE_OBJECTS = {"os.environ", "sys.argv"}
_TYPE_NAME_ATTRIBUTES = {"__name__", "__qualname__", "__module__"}
_MESSAGE_CALLS = {"warn", "print", "debug", "info", "warning", "error", "exception", "critical"}
_MESSAGE_SUFFIXES = ("Error", "Exception", "Warning")
_LOOKUP_METHODS = {"get", "pop", "setdefault"}


class IdentityFlow(Rule):
    info = RuleInfo(
        code="LWA008",
        name="identity-flow",
        summary="a value from an identity source (names, docstrings, annotations, parameter "
        "names, source text, files, directory listings, environment variables) reaches a "
        "decision (condition, match, lookup key, getattr) or built text",
        fix="decide from the IR's ops, types and attributes and from the target record; what a "
        "kernel is called, where it lives or what the machine's environment says must not "
        "change what it is lowered to",
    )
    must_flag = (
        "import hashlib\ndef warps(kernel):\n    key = hashlib.sha256(kernel.name.encode())\n"
        "    return 2 if key.hexdigest()[:4] == 'a1b2' else 4",
        "def emit(kernel, fn):\n    if fn.__name__.endswith('mm'):\n        return 1\n    return 0",
        "def pick(fn):\n    about = fn.__doc__ or ''\n    if 'online' in about:\n        return 2\n"
        "    return 4",
        "import inspect\ndef warps(fn):\n    names = list(inspect.signature(fn).parameters)\n"
        "    return TABLE[names[0]]",
        "import os\ndef warps():\n    return 2 if os.environ.get('FAST') else 4",
        "def warps(fn):\n    return 2 if 'online' in getattr(fn, '__doc__', '') else 4",
        "from pathlib import Path\ndef hints():\n"
        "    text = Path(__file__).with_name('h').read_text()\n    for word in text.split():\n"
        "        if word:\n            return getattr(RULES, word)",
        "def header(fn):\n    return f'// kernel for {fn.__qualname__}\\n'",
        "def _who(fn):\n    return fn.__module__\n\ndef run(fn):\n    match _who(fn):\n"
        "        case 'x':\n            return 1",
    )
    must_pass = (
        "def fail(fn):\n    raise ValueError(f'{fn.__qualname__} is not a def function')",
        "import warnings\ndef note(fn):\n    warnings.warn(f'{fn.__name__}: slow path')",
        "def emit(op):\n    if op.name == 'arith.add':\n        return '+'\n    return None",
        "def spell(value):\n    return f'{value.name} = 0;'",
        "def opening(kernel):\n    return f'void {kernel.name}(float* x) {{'",
        "def check(kernel, reserved):\n    if kernel.name in reserved:\n"
        "        raise ValueError(f'{kernel.name} is reserved')",
        "import os\nROOT = os.path.dirname(__file__)",
        "def save(path, text):\n    with open(path, 'w') as out:\n        out.write(text)",
    )

    def visit_Module(self, node: cst.Module) -> None:
        own = _imported_names(node)
        if not _reads_a_source(node, _Flow(None, set(), own)):
            return  # nothing in the file reads an identity source
        functions = _functions(node)
        returning = _tainted_functions(functions, own)
        _Flow(self, returning, own).body(node.body)
        for function in functions:
            _Flow(self, returning, own).body(function.body.body)


def _reads_a_source(module: cst.Module, flow: _Flow) -> bool:
    return any(flow.is_source(part) for part in descendants(module) if type(part) is not cst.Name)


def _functions(node: cst.CSTNode) -> list[cst.FunctionDef]:
    return [part for part in descendants(node) if type(part) is cst.FunctionDef]


def _imported_names(module: cst.Module) -> set[str]:
    """Names the module binds by importing (its own modules and functions, libraries), and names
    bound to `import_module("constant")`."""
    names = {"self", "cls"}
    for part in descendants(module):
        kind = type(part)
        if kind is cst.ImportAlias:
            bound = part.asname.name if part.asname else part.name
            names.add((dotted_name(bound) or "").partition(".")[0])
        elif kind is cst.Assign and type(part.value) is cst.Call:
            call = part.value
            constant = all(type(argument.value) is cst.SimpleString for argument in call.args)
            if constant and (dotted_name(call.func) or "").endswith("import_module"):
                names.update(t.target.value for t in part.targets if type(t.target) is cst.Name)
    return names


def _tainted_functions(functions: list[cst.FunctionDef], own: set[str]) -> set[str]:
    """Names of the module's functions whose return value carries a source (to a fixpoint)."""
    returning: set[str] = set()
    while True:
        grown = {
            f.name.value
            for f in functions
            if f.name.value not in returning and _Flow(None, returning, own).returns(f)
        }
        if not grown:
            return returning
        returning |= grown


class _Flow:
    """Taint through one body's statements; reports sinks to `rule` (None: only learn)."""

    def __init__(self, rule: IdentityFlow | None, returning: set[str], own: set[str]):
        self.rule = rule
        self.returning = returning
        self.tainted: dict[str, str] = {}  # name -> "identity", or "name" (a kernel's name)
        self.own = own  # names whose names and annotations are the code's own structure
        self.returned = False
        self.reported: set[int] = set()
        self.memo: dict[tuple[int, bool], tuple[int, cst.CSTNode | None]] = {}

    def returns(self, function: cst.FunctionDef) -> bool:
        self.body(function.body.body)
        return self.returned

    def body(self, statements) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.FunctionDef | cst.ClassDef):
            return  # its own flow (functions are analysed one by one)
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.small(small)
            return
        if isinstance(node, cst.If | cst.While) and not _only_refuses(node):
            self.decision(node.test, "a condition")
        elif isinstance(node, cst.For):
            self.bind(node.target, self.carries(node.iter))
        elif isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    self.bind(item.asname.name, self.carries(item.item))
        elif isinstance(node, cst.Match):
            self.decision(node.subject, "a match")
            for case in node.cases:
                if case.guard is not None:
                    self.decision(case.guard, "a case guard")
        self.expressions(node)
        loop = isinstance(node, cst.For | cst.While)
        for _ in range(2 if loop else 1):  # a loop's later statements reach its earlier ones
            for child in _child_statements(node):
                self.statement(child)

    def small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Raise):
            return  # a message
        self.expressions(node)
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self.bind(target.target, self.carries(node.value))
        elif isinstance(node, cst.AnnAssign | cst.AugAssign):
            if node.value is not None:
                self.bind(node.target, self.carries(node.value))
        elif isinstance(node, cst.Return) and node.value is not None:
            self.returned |= self.carries(node.value) == "identity"

    def expressions(self, node: cst.CSTNode) -> None:
        """Sinks inside the statement's own expressions (not its nested statements)."""
        compound = isinstance(node, cst.BaseCompoundStatement)
        for part in _header_expressions(node) if compound else [node]:
            _sinks(self, part)

    def decision(self, node: cst.CSTNode, sink: str) -> None:
        """Report the first source in `node`; text may hold a kernel's name (it names the
        function it emits), decisions may not."""
        source = self.source_in(node, text=sink == "built text")
        if source is None or self.rule is None or id(node) in self.reported:
            return
        self.reported.add(id(node))
        shown = cst.Module([]).code_for_node(source)[:60]
        self.rule.report(node, f"`{shown}` (who the kernel is) reaches {sink}", shown)

    def carries(self, node: cst.CSTNode) -> str | None:
        """ "identity", "name" (a kernel's name and no other source), or None."""
        if self.source_in(node, text=True) is not None:
            return "identity"
        return "name" if self.source_in(node) is not None else None

    def source_in(self, node: cst.CSTNode, text: bool = False) -> cst.CSTNode | None:
        """The first source in `node` (a source expression or a tainted name); with `text`,
        only those that text may not hold either."""
        known = self.memo.get((id(node), text))
        if known is not None and known[0] == len(self.tainted):  # taint only grows
            return known[1]
        found = _first_source(self, node, text)
        self.memo[id(node), text] = (len(self.tainted), found)
        return found

    def is_source(self, node: cst.CSTNode, text: bool = False) -> bool:
        if isinstance(node, cst.Name):
            kind = self.tainted.get(node.value)
            return kind == "identity" or (kind == "name" and not text)
        if isinstance(node, cst.Attribute):
            if dotted_name(node) in _SOURCE_OBJECTS:
                return True
            if not text and _kernel_name(node):
                return True
            if node.attr.value in _TYPE_NAME_ATTRIBUTES and _is_type_of(node.value):
                return False  # a value's type is IR structure: `type(node).__name__`
            return node.attr.value in _SOURCE_ATTRIBUTES and not self._own(node.value)
        if isinstance(node, cst.Call):
            name = dotted_name(node.func) or ""
            if name in ("typing.get_type_hints", "get_type_hints") and node.args:
                if self._own(node.args[0].value):
                    return False
            if name == "getattr" and len(node.args) > 1:  # getattr(f, "__doc__")
                attribute = node.args[1].value
                if type(attribute) is cst.SimpleString and not self._own(node.args[0].value):
                    return attribute.raw_value in _SOURCE_ATTRIBUTES
            on_object = isinstance(node.func, cst.Attribute)
            method = node.func.attr.value if on_object else name
            return (
                name in _SOURCE_CALLS
                or method in self.returning
                or (on_object and method in _SOURCE_METHODS)
            ) and not _opens_for_writing(node)
        return False

    def _own(self, node: cst.CSTNode) -> bool:
        """`node` is the code's own structure: an imported name, `self`, `cls`, `type(self)`."""
        if isinstance(node, cst.Call) and dotted_name(node.func) == "type" and node.args:
            node = node.args[0].value
        return isinstance(node, cst.Name) and node.value in self.own

    def bind(self, target: cst.CSTNode, kind: str | None) -> None:
        if kind is None:
            return
        if isinstance(target, cst.Name):
            if self.tainted.get(target.value) != "identity":
                self.tainted[target.value] = kind
        elif isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self.bind(element.value, kind)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, kind)


def _sinks(flow: _Flow, node: cst.CSTNode) -> None:
    """Report sources that reach a sink in one statement's expressions (not in nested blocks,
    not in messages)."""
    stack = [node]
    while stack:
        part = stack.pop()
        kind = type(part)
        if kind is cst.IndentedBlock or (kind is cst.Call and _message_call(part)):
            continue
        if kind is cst.IfExp:
            flow.decision(part.test, "a condition")
        elif kind is cst.CompIf:
            flow.decision(part.test, "a condition")
        elif kind is cst.Subscript and not flow.carries(part.value):
            for element in part.slice:
                if type(element.slice) is cst.Index:
                    flow.decision(element.slice.value, "a lookup key")
        elif kind is cst.FormattedString:
            flow.decision(part, "built text")
        elif kind is cst.Call:
            _call_sinks(flow, part)
        stack.extend(child_nodes(part))


def _call_sinks(flow: _Flow, call: cst.Call) -> None:
    name = dotted_name(call.func) or ""
    on_object = type(call.func) is cst.Attribute
    method = call.func.attr.value if on_object else name
    arguments = [argument.value for argument in call.args]
    if name in ("getattr", "hasattr") and len(arguments) > 1:
        flow.decision(arguments[1], "getattr")
    elif method in _LOOKUP_METHODS and on_object:
        if arguments and not flow.carries(call.func.value):
            flow.decision(arguments[0], "a lookup key")
    elif method in ("format", "join") and on_object:
        if any(flow.carries(argument) for argument in arguments):
            flow.decision(call, "built text")


def _first_source(flow: _Flow, node: cst.CSTNode, text: bool) -> cst.CSTNode | None:
    """The first source in an expression (`text`: only those text may not hold either)."""
    stack = [node]
    while stack:
        part = stack.pop()
        if flow.is_source(part, text):
            return part
        kind = type(part)
        if kind is cst.Attribute:  # `x.name`: x, not a variable `name`
            stack.append(part.value)
        elif kind is not cst.Lambda and kind is not cst.FunctionDef:
            stack.extend(reversed(child_nodes(part)))
    return None


def _kernel_name(node: cst.Attribute) -> bool:
    """`kernel.name`, `self.kernel.name`, `handle.kernel_name`: what the author called it."""
    if node.attr.value == "kernel_name":
        return True
    receiver = node.value.attr.value if isinstance(node.value, cst.Attribute) else None
    receiver = receiver or (node.value.value if isinstance(node.value, cst.Name) else "")
    return node.attr.value == "name" and "kernel" in receiver.lower()


def _only_refuses(node: cst.If | cst.While) -> bool:
    """`if <check>: raise ...` with nothing else: a refusal, not a different lowering."""
    if not isinstance(node, cst.If) or node.orelse is not None:
        return False
    statements = node.body.body
    return all(
        isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Raise) for x in s.body)
        for s in statements
    )


def _is_type_of(node: cst.CSTNode) -> bool:
    """`type(x)` or `x.__class__`."""
    if isinstance(node, cst.Attribute):
        return node.attr.value == "__class__"
    return isinstance(node, cst.Call) and dotted_name(node.func) == "type"


def _message_call(call: cst.Call) -> bool:
    """A call that makes a message: an exception, a warning, a print, a log line."""
    name = (dotted_name(call.func) or "").rpartition(".")[2]
    return name in _MESSAGE_CALLS or name.endswith(_MESSAGE_SUFFIXES)


def _opens_for_writing(call: cst.Call) -> bool:
    if (dotted_name(call.func) or "") not in ("open", "io.open"):
        return False
    modes = [a.value for a in call.args[1:2] if a.keyword is None]
    modes += [a.value for a in call.args if a.keyword and a.keyword.value == "mode"]
    return any(
        isinstance(mode, cst.SimpleString) and set(mode.raw_value) & set("wax+") for mode in modes
    )


def _child_statements(node: cst.BaseCompoundStatement) -> list[cst.CSTNode]:
    children: list[cst.CSTNode] = []
    for name in ("body", "orelse", "finalbody"):
        part = getattr(node, name, None)
        if part is None:
            continue
        if isinstance(part, cst.If):  # elif
            children.append(part)
        elif isinstance(part, cst.Else | cst.Finally):
            children.extend(part.body.body)
        elif hasattr(part, "body"):
            children.extend(part.body)
    for handler in getattr(node, "handlers", ()):
        children.extend(handler.body.body)
    for case in getattr(node, "cases", ()):
        children.extend(case.body.body)
    return children


def _header_expressions(node: cst.BaseCompoundStatement) -> list[cst.CSTNode]:
    """The expressions a compound statement evaluates itself (its test, iterable, items)."""
    if isinstance(node, cst.If | cst.While):
        return [node.test]
    if isinstance(node, cst.For):
        return [node.iter]
    if isinstance(node, cst.With):
        return [item.item for item in node.items]
    if isinstance(node, cst.Match):
        return [node.subject]
    return []
