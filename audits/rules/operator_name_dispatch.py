"""LWA002: code that branches or looks up on an operator's name, in any of its forms."""

from __future__ import annotations

import libcst as cst

from audits.evaluation import is_known
from audits.patterns import flag_value, glob_pattern, operator_named_by
from audits.rules.base import Rule, RuleInfo
from audits.rules.denotation import denoted_word
from audits.syntax import (
    STRING_NODES,
    call_arguments,
    callee_name,
    dotted_name,
    is_built_string,
    last_name,
)
from audits.vocabulary import split_words

# Calls that compare, test or look up their first argument against a string.
_MATCHING_CALLS = {
    "startswith", "endswith", "find", "rfind", "index", "rindex", "count", "removeprefix",
    "removesuffix", "__eq__", "__ne__", "__contains__", "eq", "ne", "contains", "get", "pop",
    "setdefault", "__getitem__",
}  # fmt: skip
# Calls that match names against a pattern; `compile`, `sub` and `filter` only as `re.compile`...
_PATTERN_CALLS = {
    "match", "fullmatch", "search", "findall", "finditer", "fnmatch", "fnmatchcase", "compile",
    "sub", "subn", "filter",
}  # fmt: skip
_QUALIFIED_PATTERN_CALLS = {"compile", "sub", "subn", "filter"}
_GLOB_CALLS = {"fnmatch", "fnmatchcase", "filter"}
_ATTRIBUTE_CALLS = {"getattr", "hasattr", "setattr", "delattr"}
_NAMESPACE_CALLS = {"globals", "locals", "vars"}
_IMPORT_CALLS = {"import_module", "__import__"}
# Words of a handler's name: `getattr(self, "emit_" + op.name)` picks the emitter of that op.
_HANDLER_WORDS = {
    "lower", "lowering", "emit", "emitter", "render", "codegen", "gen", "generate", "handle",
    "handler", "impl", "visit", "rewrite", "fuse", "fused", "decompose", "legalize", "convert",
    "translate", "transform", "build", "make", "spell", "kernel", "op",
}  # fmt: skip
_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"}
# Words of callees that register a handler under a key: register("matmul", fn).
_REGISTERING_WORDS = {
    "register", "registry", "dispatch", "handler", "handlers", "lowering", "lowerings", "rule",
    "rules", "impl", "impls", "implement",
}  # fmt: skip


class OperatorNameDispatch(Rule):
    info = RuleInfo(
        code="LWA002",
        name="operator-name-dispatch",
        summary="a comparison, match, lookup, registration or enum keyed by an operator's name",
        fix=(
            "do not special-case an operator: the IR's generic ops reach every backend through "
            "the same passes and the emitter's spelling table; add a generic op to the op "
            "registry or a generic pass when something is missing"
        ),
    )
    must_flag = (
        'def f(op):\n    if op.name == "matmul":\n        return 1',
        'def f(op):\n    return op.kind in ("softmax", "bmm")',
        'def f(name):\n    return name.startswith("attn")',
        'def f(name):\n    return "attn" in name',
        'def f(op):\n    match op.name:\n        case "softmax":\n            return 1',
        "def f(op):\n    match op:\n        case MatmulOp():\n            return 1",
        'TEMPLATES = {"matmul": 1, "softmax": 2}',
        "class Emitter:\n    def emit(self, op):\n        return getattr(self, 'emit_' + op.name)",
        "def f(self, op):\n    return getattr(self, f'lower_{op.kind}')",
        "def f(self, op):\n    name = 'emit_' + op\n    return getattr(self, name)",
        '@register("flash_attention")\ndef lower(kernel): ...',
        "import enum\nclass Kind(enum.Enum):\n    MATMUL = 1\n    def f(self): ...",
        "import enum\nclass Kind(enum.Enum): SOFTMAX = 2",
        'KIND = "matmul"\ndef f(x):\n    return x == KIND',
        'OPS = ("layer_norm", "rms_norm")\ndef f(x):\n    return x in OPS',
        "def f(op):\n    return op.kind is Kinds.SOFTMAX",
        'def f(table):\n    return table["conv2d"]',
        'def f(op):\n    return op.name == "mat" + "mul"',
        'import re\ndef f(name):\n    return re.match(r"^attn_\\w+", name)',
        'LOWERINGS.register("gelu", print)',
        'Kind = Enum("Kind", "MATMUL SOFTMAX")',
        'def f(op):\n    return globals()["lower_" + op.name](op)',
        "def f(op):\n    return {'softmax': 1}.get(op.name)",
        "import importlib\nmodule = importlib.import_module('compiler.kernels.matmul')",
        'class FusePattern:\n    root = "softmax"',
        'def lower(kernel, kind="flash_attention"):\n    return kernel',
    )
    must_pass = (
        'def f(op):\n    if op.name == "arith.add":\n        return 1',
        'def f(op):\n    return op.name.startswith("linalg.")',
        'def f(op):\n    return op.dialect in ("reduce", "math")',
        'SPELLING = {"math.exp": "tl.exp({0})", "reduce.sum": "tl.sum({0}, {axis})"}',
        'def f(self, op):\n    return getattr(self, "visit_op")',
        "import enum\nclass Effect(enum.Enum):\n    PURE = 1\n    READ = 2",
        "def f(op):\n    if op.reduction_axis == 0:\n        return 1",
        'def f(name):\n    return name == "summary"',
        '@dataclass(frozen=True)\nclass Canonicalize:\n    name: str = "ssa.canonicalize"',
        "def f(x, y):\n    return getattr(x, y)",
        "def f(self, node):\n    return getattr(self, f'visit_{type(node).__name__}', None)",
        'class Canonicalize:\n    name = "ssa.canonicalize"\n    category = "hardware-independent"',
        'def run(kernel, pipeline="ssa.canonicalize,ssa.cse"):\n    return kernel',
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._built_names: list[dict[str, str]] = [{}]  # name -> its text, `{}` for run time

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._built_names.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._built_names.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        built = self._built_text(node.value)
        if built is not None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self._built_names[-1][target.target.value] = built

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left] + [target.comparator for target in node.comparisons]
        self._flag_first(node, operands, "compares with operator name")

    def visit_MatchValue(self, node: cst.MatchValue) -> None:
        self._flag_first(node, [node.value], "matches on operator name")

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        self._flag_first(node, [node.cls], "matches on operator class")

    def visit_MatchMappingElement(self, node: cst.MatchMappingElement) -> None:
        self._flag_first(node, [node.key], "matches on operator name")

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self._flag_first(node, [node.key], "keys a table by operator name")

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        if isinstance(node.slice, cst.Index):
            self._flag_first(node, [node.slice.value], "looks up by operator name")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        namespace = node.value
        built_key = any(
            isinstance(element.slice, cst.Index) and self._names_handler(element.slice.value)
            for element in node.slice
        )
        if built_key and (
            (isinstance(namespace, cst.Call) and callee_name(namespace) in _NAMESPACE_CALLS)
            or last_name(namespace) == "__dict__"
        ):
            self.report(node, "looks up a function by a name built at run time", "namespace")

    def visit_Decorator(self, node: cst.Decorator) -> None:
        if isinstance(node.decorator, cst.Call):
            self._flag_first(node, call_arguments(node.decorator), "registers under operator name")

    def visit_Call(self, node: cst.Call) -> None:
        callee = callee_name(node)
        arguments = call_arguments(node)
        if callee in _MATCHING_CALLS and arguments:
            self._flag_first(node, arguments, f"tests a name with {callee}()")
        elif callee in _PATTERN_CALLS:
            self._flag_pattern(node, arguments, callee)
        elif callee in ("isinstance", "issubclass") and len(arguments) == 2:
            self._flag_first(node, arguments[1:], f"{callee}() on operator class")
        elif callee in _ATTRIBUTE_CALLS and len(arguments) >= 2:
            self._flag_attribute_name(node, arguments[1], callee)
        elif callee in _IMPORT_CALLS and arguments:
            self._flag_first(node, arguments[:1], "imports module")
        elif callee in _ENUM_BASES and len(arguments) >= 2:
            self._flag_functional_enum(node, arguments[1])
        elif callee == "dict":
            self._flag_keywords(node)
        elif self._registers(node.func):
            self._flag_first(node, arguments, f"registers with {callee}() under operator name")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        is_enum = any(last_name(base.value) in _ENUM_BASES for base in node.bases)
        for small in _class_level_statements(node):
            if isinstance(small, cst.Assign):
                targets = [(target.target, small.value) for target in small.targets]
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                targets = [(small.target, small.value)]
            else:
                continue
            for target, value in targets:
                if is_enum:
                    self._flag_enum_member(target, value)
                else:
                    self._flag_first(target, [value], "class attribute holds operator name")

    def visit_Param(self, node: cst.Param) -> None:
        if node.default is not None:
            self._flag_first(node, [node.default], "parameter defaults to operator name")

    def _flag_first(self, node: cst.CSTNode, operands, what: str) -> None:
        for operand in operands:
            found = denoted_word(operand, self.vocabulary, self.context.evaluator)
            if found:
                what = f"{what} {found.subject} (operator '{found.word}')"
                self.report(node, what, found.subject, found.origin)
                return

    def _flag_pattern(self, node: cst.Call, arguments: list, callee: str) -> None:
        """A pattern that picks out an operator's name is dispatch on that name."""
        if callee in _QUALIFIED_PATTERN_CALLS and not isinstance(node.func, cst.Attribute):
            return  # the builtin compile() and filter() take no pattern
        evaluator = self.context.evaluator
        flags = flag_value(_flag_names(node))
        for argument in arguments:
            for value in evaluator.alternatives(argument):
                text = value.decode("latin-1") if isinstance(value, bytes) else value
                if not isinstance(text, str):
                    continue
                pattern = glob_pattern(text) if callee in _GLOB_CALLS else text
                found = operator_named_by(pattern, flags, self.vocabulary.words)
                word = found[1] if found else self.vocabulary.find(text)
                if word:
                    how = f", which matches {found[0]!r}" if found else ""
                    what = f"matches names with {callee}({text!r}){how} (operator '{word}')"
                    self.report(node, what, text, evaluator.origin(argument))
                    return

    def _flag_attribute_name(self, node: cst.Call, name: cst.BaseExpression, callee: str) -> None:
        if self._names_handler(name):
            built = self._built_text(name)
            what = f"{callee}() with a name built at run time ({built!r}) dispatches by name"
            self.report(node, what, callee)
        else:
            self._flag_first(node, [name], f"{callee}() of operator name")

    def _flag_functional_enum(self, node: cst.Call, members: cst.BaseExpression) -> None:
        text = self.context.evaluator.value(members)
        names = text.replace(",", " ").split() if isinstance(text, str) else None
        for name in names or ():
            word = self.vocabulary.find(name)
            if word:
                self.report(node, f"enum member {name} names operator '{word}'", name)
                return
        if names is None:
            self._flag_first(node, [members], "defines enum members")

    def _flag_keywords(self, node: cst.Call) -> None:
        for argument in node.args:
            if argument.keyword is not None:
                word = self.vocabulary.find(argument.keyword.value)
                if word:
                    subject = argument.keyword.value
                    self.report(node, f"keys a table by operator name {subject}", subject)
                    return

    def _flag_enum_member(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if not isinstance(target, cst.Name):
            return
        word = self.vocabulary.find(target.value)
        denoted = None if word else denoted_word(value, self.vocabulary, self.context.evaluator)
        if word or denoted:
            subject, word = (target.value, word) if word else (denoted.subject, denoted.word)
            self.report(
                target,
                f"enum member {subject} names operator '{word}'",
                subject,
                denoted and denoted.origin,
            )

    def _built_text(self, node: cst.BaseExpression) -> str | None:
        """The text of a name assembled at run time, `{}` for the run-time parts (`emit_{}`);
        None for a constant (the evaluator reads it) or for anything else."""
        if isinstance(node, cst.Name):
            scopes = reversed(self._built_names)
            return next((scope[node.value] for scope in scopes if node.value in scope), None)
        if not is_built_string(node) or _from_class_name(node):
            return None
        evaluator = self.context.evaluator
        if is_known(evaluator.value(node)):
            return None
        if isinstance(node, cst.Call):  # "emit_{}".format(...), "_".join(["emit", ...])
            receiver = evaluator.template(node.func.value) or "{}"
            if node.func.attr.value == "format":
                return receiver
            parts = node.args[0].value if node.args else None
            elements = parts.elements if isinstance(parts, (cst.List, cst.Tuple)) else ()
            return receiver.join(evaluator.template(e.value) or "{}" for e in elements) or "{}"
        return evaluator.template(node)

    def _names_handler(self, node: cst.BaseExpression) -> bool:
        """A name built at run time from a handler's prefix (`emit_`, `lower_`, `visit_`): the
        lookup picks code by what is being lowered. Other built names (`c_int{bits}`, register
        and symbol names) are not dispatch."""
        text = self._built_text(node)
        return text is not None and not _HANDLER_WORDS.isdisjoint(split_words(text))

    @staticmethod
    def _registers(func: cst.BaseExpression) -> bool:
        name = dotted_name(func)
        return bool(name) and not _REGISTERING_WORDS.isdisjoint(split_words(name))


def _flag_names(call: cst.Call) -> list[str]:
    """Names in a pattern call's flags argument: `re.compile(p, re.I | re.X)` -> I, X."""
    names = []
    for argument in call.args[1:]:
        stack = [argument.value]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.BinaryOperation):
                stack += [node.left, node.right]
            elif isinstance(node, (cst.Name, cst.Attribute)):
                names.append(last_name(node))
    return names


def _from_class_name(node: cst.BaseExpression) -> bool:
    """`f"visit_{type(node).__name__}"`: the syntax-tree visitor idiom dispatches on a class, which
    LWA001 already checks by name; it is not a string an operator name flows into."""
    if isinstance(node, cst.FormattedString):
        dynamic = [p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)]
    elif isinstance(node, cst.BinaryOperation):
        dynamic = [part for part in (node.left, node.right) if not isinstance(part, STRING_NODES)]
    else:
        return False
    return all(last_name(part) == "__name__" for part in dynamic)


def _class_level_statements(node: cst.ClassDef):
    """The small statements (assignments, expressions) directly in a class body."""
    if isinstance(node.body, cst.SimpleStatementSuite):
        yield from node.body.body
        return
    for statement in node.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
