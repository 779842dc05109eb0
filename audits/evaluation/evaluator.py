"""The constant evaluator: what value an expression has when it is built only from constants.

It reads literals, `+ * %`, f-strings, `str.format`, `"".join`, slicing and reversal, str and
bytes methods, `chr`/`bytes`/`map` and comprehensions over constants, decoders (base64, hex,
zlib, codecs, ...) and names bound once to such values: local names bound so far, module-level
names, class attributes (`Kinds.MATMUL`, `self.KIND`), imported constants, and helper functions
or lambdas that only return an expression. Recursion, sizes and decompression are bounded, and
a name that refers to itself evaluates to UNKNOWN.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import libcst as cst

from audits.evaluation.bindings import Binding, ModuleBindings, ProjectBindings
from audits.evaluation.decoders import DECODER_FUNCTIONS, apply_codec, decode_function
from audits.evaluation.operations import (
    TEXT_METHODS,
    binary,
    builtin,
    format_value,
    maketrans,
    method,
)
from audits.evaluation.scopes import ScopeTracker
from audits.evaluation.values import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_STEPS,
    UNKNOWN,
    Opaque,
    fits,
    is_known,
    looks_encoded,
)
from audits.syntax import dotted_name, last_name

_BUILTINS = {
    "str", "repr", "chr", "ord", "int", "bytes", "bytearray", "len", "tuple", "list", "sorted",
    "reversed", "set", "frozenset", "format",
}  # fmt: skip
_CONSTANT_NAMES = {"True": True, "False": False, "None": None}
_SPECIAL_CALLS = {
    "str.maketrans", "bytes.maketrans", "bytes.fromhex", "bytearray.fromhex", "codecs.decode",
    "codecs.encode", "re.escape", "regex.escape",
}  # fmt: skip
_DICT_METHODS = {"get", "keys", "values"}
_PLAIN_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)


@dataclass(frozen=True)
class Origin:
    """Where a value was built: an expression in a module."""

    module: ModuleBindings
    node: cst.CSTNode


class EvaluationState:
    """What every evaluator of one audit shares: results, the names being resolved, the depth."""

    def __init__(self, project: ProjectBindings) -> None:
        self.project = project
        self.memo: dict[int, object] = {}
        self.active: set[int] = set()
        self.depth = 0
        self.steps_left = MAX_STEPS  # evaluations left for the question being answered
        self._module_level: dict[str, Evaluator] = {}

    def module_level(self, bindings: ModuleBindings) -> Evaluator:
        """The evaluator of a module's top level (no function scope)."""
        if bindings.path not in self._module_level:
            self._module_level[bindings.path] = Evaluator(self, bindings, None)
        return self._module_level[bindings.path]


class Evaluator:
    def __init__(
        self, state: EvaluationState, bindings: ModuleBindings, scopes: ScopeTracker | None
    ) -> None:
        self.state = state
        self.bindings = bindings
        self.scopes = scopes
        self._class_context: str | None = None  # evaluating a class attribute of this class

    # ----------------------------------------------------------------- questions rules ask

    def value(self, node: cst.CSTNode, env: dict | None = None):
        """The constant value of `node`, an Opaque marker, or UNKNOWN."""
        key, state = id(node), self.state
        if env is None and key in state.memo:
            return state.memo[key]
        if state.depth == 0:
            state.steps_left = MAX_STEPS
        if state.depth >= MAX_DEPTH or state.steps_left <= 0:
            return UNKNOWN
        state.depth += 1
        state.steps_left -= 1
        try:
            result = self._evaluate(node, env or {})
        except (RecursionError, MemoryError):
            result = UNKNOWN
        finally:
            state.depth -= 1
        if env is None and state.steps_left > 0:  # a value cut short by the budget is not kept
            state.memo[key] = result
        return result

    def alternatives(self, node: cst.CSTNode) -> tuple:
        """Every known value `node` may have: a name bound several times, or running over a
        constant sequence (`for kind in ("bmm", "mm")`), has one value per binding or element."""
        if isinstance(node, (cst.Name, cst.Attribute)):
            found = []
            for owner, binding in self._bindings(node):
                found += [
                    v for v in owner.binding_values(binding) if is_known(v) and v not in found
                ]
            return tuple(found)
        value = self.value(node)
        return (value,) if is_known(value) else ()

    def template(self, node: cst.CSTNode) -> str | None:
        """The text of a string expression, with `{}` for parts computed at run time."""
        value = self.value(node)
        if isinstance(value, str):
            return value
        if isinstance(value, bytes):
            return value.decode("latin-1")
        if isinstance(node, cst.FormattedString):
            return "".join(self._template_part(node, part) for part in node.parts)
        if _is_concatenation(node):
            pieces = [self.template(piece) for piece in _concatenated(node)]
            if all(piece is None for piece in pieces):
                return None
            return "".join("{}" if piece is None else piece for piece in pieces)
        return None

    def origin(self, node: cst.CSTNode, hops: int = 8) -> Origin | None:
        """Where the value of `node` was built; None for a plain literal written in place."""
        if isinstance(node, _PLAIN_LITERALS) or (
            isinstance(node, cst.FormattedString)
            and not any(isinstance(p, cst.FormattedStringExpression) for p in node.parts)
        ):
            return None
        if isinstance(node, (cst.Name, cst.Attribute)) and hops:
            values = [(o, b) for o, b in self._bindings(node) if b.kind in ("value", "each")]
            if len(values) == 1:
                owner, binding = values[0]
                if binding.kind == "each":  # `for kind in (...)`: built where it runs over
                    return Origin(owner.bindings, binding.node)
                return owner.origin(binding.node, hops - 1) or Origin(owner.bindings, binding.node)
            return None
        return Origin(self.bindings, node)

    # ------------------------------------------------------------------------ evaluation

    def binding_values(self, binding: Binding) -> list:
        """The values one binding gives its name (several for a `for` target)."""
        if binding.kind == "value":
            return [self._bound_value(binding.node)]
        if binding.kind == "each":
            return list(_items(self.value(binding.node)) or ())
        return []

    def _bound_value(self, node: cst.CSTNode):
        key = id(node)
        if key in self.state.active:
            return UNKNOWN  # the name refers to itself
        self.state.active.add(key)
        try:
            return self.value(node)
        finally:
            self.state.active.discard(key)

    def _evaluate(self, node: cst.CSTNode, env: dict):
        if isinstance(node, cst.SimpleString):
            try:
                return node.evaluated_value
            except (ValueError, SyntaxError):
                return UNKNOWN
        if isinstance(node, (cst.Integer, cst.Float)):
            return fits(node.evaluated_value)
        if _is_concatenation(node):  # long chains of `+` and adjacent literals, without recursion
            first, *rest = _concatenated(node)
            total = self.value(first, env)
            for piece in rest:
                if not is_known(total):
                    break
                total = binary("Add", total, self.value(piece, env))
            return total
            return total
        if isinstance(node, cst.FormattedString):
            return self._formatted(node, env)
        if isinstance(node, cst.Name):
            return self._name(node, env)
        if isinstance(node, cst.Attribute):
            return self._single(node)
        if isinstance(node, cst.BinaryOperation):
            left, right = self.value(node.left, env), self.value(node.right, env)
            return binary(type(node.operator).__name__, left, right)
        if isinstance(node, cst.UnaryOperation):
            return self._unary(node, env)
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            return self._sequence(node.elements, env)
        if isinstance(node, cst.Dict):
            return self._dict(node, env)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, env)
        if isinstance(node, cst.IfExp):
            test = self.value(node.test, env)
            if not is_known(test):
                return UNKNOWN
            return self.value(node.body if test else node.orelse, env)
        if isinstance(node, cst.Call):
            return self._call(node, env)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return self._comprehension(node, env)
        return UNKNOWN

    def _name(self, node: cst.Name, env: dict):
        name = node.value
        if name in env:
            return env[name]
        if name in _CONSTANT_NAMES:
            return _CONSTANT_NAMES[name]
        return self._single(node)

    def _single(self, node: cst.CSTNode):
        """The value of a name or attribute with exactly one binding."""
        found = self._bindings(node)
        if len(found) != 1:
            return UNKNOWN
        owner, binding = found[0]
        if binding.kind == "value":
            return owner._bound_value(binding.node)
        if binding.kind == "function" and _is_property(binding.node):
            return owner._helper(binding.node, [], {}, is_method=True)
        return UNKNOWN

    def _bindings(self, node: cst.CSTNode) -> list[tuple[Evaluator, Binding]]:
        """(the evaluator of the binding's module level, binding) for a name or attribute."""
        if isinstance(node, cst.Name):
            return self._name_bindings(node.value)
        if not isinstance(node, cst.Attribute):
            return []
        attribute = node.attr.value
        base = dotted_name(node.value)
        if base in ("self", "cls") and self.scopes is not None:
            return self._class_bindings(self.bindings, self.scopes.class_name, attribute)
        if base is None or "." in base:
            return []
        if base in self.bindings.classes:
            return self._class_bindings(self.bindings, base, attribute)
        if base in self.bindings.imported:
            project = self.state.project
            owners = project.classes.get(self.bindings.imported[base], ())
            found = [
                pair for owner in owners for pair in self._class_bindings(owner, base, attribute)
            ]
            return found or self._project_bindings(attribute)
        return []

    def _name_bindings(self, name: str) -> list[tuple[Evaluator, Binding]]:
        module_level = self.state.module_level(self.bindings)
        if self.scopes is not None:
            local = self.scopes.lookup(name)
            if local is not None:
                return [(self, binding) for binding in local]
            class_name = self.scopes.class_name if self.scopes.in_class_body else None
        else:
            class_name = self._class_context
        if class_name is not None:
            attributes = self.bindings.classes.get(class_name, {})
            if name in attributes:
                return self._class_bindings(self.bindings, class_name, name)
        found = self.bindings.names.get(name)
        if found and not (len(found) == 1 and found[0].kind == "import"):
            return [(module_level, binding) for binding in found if binding.kind != "import"]
        if name in self.bindings.imported:
            return self._project_bindings(self.bindings.imported[name])
        return []

    def _class_bindings(self, owner: ModuleBindings, class_name: str | None, attribute: str):
        attributes = owner.classes.get(class_name or "", {})
        if attribute not in attributes:
            return []
        evaluator = Evaluator(self.state, owner, None)
        evaluator._class_context = class_name
        return [(evaluator, binding) for binding in attributes[attribute]]

    def _project_bindings(self, name: str) -> list[tuple[Evaluator, Binding]]:
        return [
            (self.state.module_level(owner), binding)
            for owner, binding in self.state.project.names.get(name, ())
            if owner is not self.bindings
        ]

    # ------------------------------------------------------------------------ expressions

    def _formatted(self, node: cst.FormattedString, env: dict, parts=None):
        pieces = []
        for part in node.parts if parts is None else parts:
            if isinstance(part, cst.FormattedStringText):
                pieces.append(_text_part(node, part))
                continue
            value = self.value(part.expression, env)
            if part.conversion in ("r", "a") and is_known(value):
                value = repr(value)
            elif part.conversion == "s" and is_known(value):
                value = str(value)
            if part.format_spec:
                spec = self._formatted(node, env, part.format_spec)
                value = format_value(value, spec) if isinstance(spec, str) else spec
            elif is_known(value):
                value = format_value(value, "")
            if not isinstance(value, str):
                return value if isinstance(value, Opaque) else UNKNOWN
            pieces.append(value)
        return fits("".join(pieces))

    def _template_part(self, node: cst.FormattedString, part) -> str:
        if isinstance(part, cst.FormattedStringText):
            return _text_part(node, part)
        value = self.value(part.expression)
        return value if isinstance(value, str) and not part.format_spec else "{}"

    def _unary(self, node: cst.UnaryOperation, env: dict):
        value = self.value(node.expression, env)
        if not isinstance(value, int) or isinstance(value, bool):
            return UNKNOWN
        if isinstance(node.operator, cst.Minus):
            return -value
        if isinstance(node.operator, cst.Plus):
            return value
        if isinstance(node.operator, cst.BitInvert):
            return ~value
        return UNKNOWN

    def _sequence(self, elements, env: dict):
        values = []
        for element in elements:
            value = self.value(element.value, env)
            if isinstance(element, cst.StarredElement):
                items = _items(value)
                if items is None:
                    return UNKNOWN
                values.extend(items)
            elif not is_known(value):
                return value if isinstance(value, Opaque) else UNKNOWN
            else:
                values.append(value)
            if len(values) > MAX_ITEMS:
                return UNKNOWN
        return tuple(values)

    def _dict(self, node: cst.Dict, env: dict):
        table = {}
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return UNKNOWN
            key = self.value(element.key, env)
            if not is_known(key) or not _is_hashable(key):
                return UNKNOWN
            table[key] = self.value(element.value, env)
        return fits(table)

    def _subscript(self, node: cst.Subscript, env: dict):
        base = self.value(node.value, env)
        if not isinstance(base, (str, bytes, tuple, dict)) or len(node.slice) != 1:
            return base if isinstance(base, Opaque) else UNKNOWN
        part = node.slice[0].slice
        try:
            if isinstance(part, cst.Index):
                key = self.value(part.value, env)
                if isinstance(base, dict):
                    return base.get(key, UNKNOWN) if _is_hashable(key) else UNKNOWN
                return base[key] if isinstance(key, int) else UNKNOWN
            bounds = [
                None if bound is None else self.value(bound, env)
                for bound in (part.lower, part.upper, part.step)
            ]
            if isinstance(base, dict) or not all(b is None or isinstance(b, int) for b in bounds):
                return UNKNOWN
            return base[slice(*bounds)]
        except (IndexError, ValueError, TypeError):
            return UNKNOWN

    def _comprehension(self, node, env: dict):
        loop = node.for_in
        if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
            return UNKNOWN
        items = _items(self.value(loop.iter, env))
        if items is None or len(items) > MAX_ITEMS:
            return UNKNOWN
        values = []
        for item in items:
            value = self.value(node.elt, {**env, loop.target.value: item})
            if not is_known(value):
                return value if isinstance(value, Opaque) else UNKNOWN
            values.append(value)
        return tuple(values)

    # ------------------------------------------------------------------------------ calls

    def _call(self, node: cst.Call, env: dict):
        func = node.func
        callee = last_name(func)
        if callee is None:
            return UNKNOWN
        if callee == "map" and isinstance(func, cst.Name) and not self._name_bindings("map"):
            return self._map(node, env)
        dotted = dotted_name(func) or ""
        if not self._may_evaluate(func, dotted, callee, env):
            return self._passed_blob(node, callee, env)
        arguments, keywords = self._arguments(node, env)
        if arguments is None:
            return UNKNOWN
        if isinstance(func, cst.Attribute):
            result = self._method_call(func, dotted, callee, arguments, keywords, env)
        else:
            result = self._function_call(callee, arguments, keywords, env)
        return self._passed_blob(node, callee, env) if result is UNKNOWN else result

    def _may_evaluate(self, func, dotted: str, callee: str, env: dict) -> bool:
        """Is the callee one the evaluator computes (a builtin, a str method, a decoder, a
        helper)? Other calls are not worth evaluating their arguments for."""
        if isinstance(func, cst.Name):
            if callee in env:
                return False
            found = self._name_bindings(callee)
            if found:
                return len(found) == 1 and found[0][1].kind in ("function", "value")
            return callee in _BUILTINS or callee in DECODER_FUNCTIONS
        if dotted in _SPECIAL_CALLS or callee in TEXT_METHODS or callee in _DICT_METHODS:
            return True
        root = dotted.split(".")[0]
        if root in ("self", "cls"):
            return True
        return callee in DECODER_FUNCTIONS and self._is_module_name(root)

    def _passed_blob(self, node: cst.Call, callee: str, env: dict):
        """A call the audit cannot compute that receives an encoded-looking literal: what it
        returns is opaque (a home-made decoder, a decryption)."""
        for argument in node.args:
            if isinstance(argument.value, (cst.Call, cst.Lambda)) or argument.star:
                continue
            value = self.value(argument.value, env)
            if looks_encoded(value):
                kind = "bytes" if isinstance(value, bytes) else "encoded-looking text"
                return Opaque(f"{len(value)} characters of {kind} passed to {callee}()")
        return UNKNOWN

    def _arguments(self, node: cst.Call, env: dict):
        arguments, keywords = [], {}
        for argument in node.args:
            value = self.value(argument.value, env)
            if argument.star == "*":
                items = _items(value)
                if items is None:
                    return None, None
                arguments.extend(items)
            elif argument.star == "**":
                return None, None
            elif argument.keyword is not None:
                keywords[argument.keyword.value] = value
            else:
                arguments.append(value)
        return arguments, keywords

    def _method_call(self, func: cst.Attribute, dotted: str, callee, arguments, keywords, env):
        parts = dotted.split(".")
        if dotted in ("str.maketrans", "bytes.maketrans"):
            return maketrans(arguments) if dotted == "str.maketrans" else UNKNOWN
        if dotted in ("bytes.fromhex", "bytearray.fromhex"):
            return decode_function("fromhex", None, arguments, keywords)
        if dotted in ("codecs.decode", "codecs.encode") and len(arguments) >= 1:
            codec = arguments[1] if len(arguments) > 1 else keywords.get("encoding", "utf-8")
            return apply_codec(arguments[0], codec, decoding=callee == "decode")
        if dotted in ("re.escape", "regex.escape") and len(arguments) == 1:
            text = arguments[0]
            return re.escape(text) if isinstance(text, (str, bytes)) else UNKNOWN
        if len(parts) == 2 and parts[0] in ("str", "bytes") and arguments:
            return method(arguments[0], callee, arguments[1:], keywords)
        if len(parts) == 2 and callee in DECODER_FUNCTIONS and self._is_module_name(parts[0]):
            return decode_function(callee, parts[0], arguments, keywords)
        receiver = self.value(func.value, env)
        if isinstance(receiver, dict):
            return _dict_method(receiver, callee, arguments)
        if isinstance(receiver, (str, bytes, Opaque)):
            return method(receiver, callee, arguments, keywords)
        if parts[0] in ("self", "cls") and self.scopes is not None:
            function = self.bindings.functions.get(f"{self.scopes.class_name}.{callee}")
            if function is not None:
                return self.state.module_level(self.bindings)._helper(
                    function, arguments, keywords, is_method=True
                )
        return UNKNOWN

    def _function_call(self, callee, arguments, keywords, env):
        if callee is None or callee in env:
            return UNKNOWN
        found = self._name_bindings(callee)
        if not found:
            if callee in _BUILTINS:
                return builtin(callee, arguments, keywords)
            return decode_function(callee, None, arguments, keywords)
        if len(found) != 1:
            return UNKNOWN
        owner, binding = found[0]
        if binding.kind == "function" or (
            binding.kind == "value" and isinstance(binding.node, cst.Lambda)
        ):
            return owner._helper(binding.node, arguments, keywords)
        return UNKNOWN

    def _map(self, node: cst.Call, env: dict):
        """`map(chr, codes)`, `map(str.lower, names)`, `map(lambda c: ..., codes)`."""
        if len(node.args) != 2 or any(a.star or a.keyword for a in node.args):
            return UNKNOWN
        function, iterable = node.args[0].value, node.args[1].value
        items = _items(self.value(iterable, env))
        if items is None:
            return UNKNOWN
        dotted = dotted_name(function) or ""
        values = []
        for item in items:
            if isinstance(function, cst.Lambda):
                value = self._helper(function, [item], {})
            elif dotted in _BUILTINS:
                value = builtin(dotted, [item], {})
            elif dotted.count(".") == 1 and dotted.split(".")[0] in ("str", "bytes", "re"):
                value = (
                    re.escape(item)
                    if dotted.endswith("escape")
                    else method(item, dotted.split(".")[1], [], {})
                )
            else:
                value = self._function_call(dotted, [item], {}, env) if dotted else UNKNOWN
            if not is_known(value):
                return value if isinstance(value, Opaque) else UNKNOWN
            values.append(value)
        return tuple(values)

    def _helper(self, function, arguments: list, keywords: dict, is_method: bool = False):
        """The value a function or lambda returns when its body is one `return <expression>`."""
        returned = _returned_expression(function)
        key = id(function)
        if returned is None or key in self.state.active:
            return UNKNOWN
        params = function.params
        names = [p.name.value for p in (*params.posonly_params, *params.params)]
        names = names[1:] if is_method and names else names
        if len(arguments) > len(names) or isinstance(params.star_arg, cst.Param):
            return UNKNOWN
        if params.star_kwarg is not None:
            return UNKNOWN
        env = dict(zip(names, arguments, strict=False))
        defaults = {p.name.value: p.default for p in (*params.params, *params.kwonly_params)}
        for name in [*names, *(p.name.value for p in params.kwonly_params)]:
            if name in env:
                continue
            if name in keywords:
                env[name] = keywords[name]
            elif defaults.get(name) is not None:
                env[name] = self.value(defaults[name])
            else:
                return UNKNOWN
        self.state.active.add(key)
        try:
            return self.value(returned, env)
        finally:
            self.state.active.discard(key)

    def _is_module_name(self, name: str) -> bool:
        """A name the module imports (`base64`, `zlib`) and binds to nothing else."""
        found = self.bindings.names.get(name, [])
        if self.scopes is not None and self.scopes.lookup(name) is not None:
            return False
        return name in self.bindings.imported or (not found and name in _STANDARD_DECODER_MODULES)


_STANDARD_DECODER_MODULES = {"base64", "binascii", "zlib", "gzip", "lzma", "bz2", "codecs"}


def _items(value) -> tuple | None:
    if isinstance(value, tuple):
        return value
    if isinstance(value, str):
        return tuple(value)
    if isinstance(value, bytes):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(value)
    return None


def _dict_method(table: dict, name: str | None, arguments: list):
    if name == "get" and arguments and _is_hashable(arguments[0]):
        default = arguments[1] if len(arguments) > 1 else None
        return table.get(arguments[0], default)
    if name == "keys" and not arguments:
        return tuple(table)
    if name == "values" and not arguments:
        return tuple(table.values())
    return UNKNOWN


def _is_concatenation(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.ConcatenatedString) or (
        isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)
    )


def _concatenated(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The operands of a chain `a + b + c` or `"a" "b" "c"`, in order, found iteratively."""
    pieces, stack = [], [node]
    while stack:
        part = stack.pop()
        if _is_concatenation(part) and type(part) is type(node):
            stack += [part.right, part.left]
        else:
            pieces.append(part)
    return pieces


def _returned_expression(function) -> cst.BaseExpression | None:
    if isinstance(function, cst.Lambda):
        return function.body
    if not isinstance(function, cst.FunctionDef) or not isinstance(
        function.body, cst.IndentedBlock
    ):
        return None
    statements = list(function.body.body)
    if statements and _is_docstring(statements[0]):
        statements = statements[1:]
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    (small,) = statements[0].body if len(statements[0].body) == 1 else (None,)
    return small.value if isinstance(small, cst.Return) and small.value is not None else None


def _is_docstring(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_property(function) -> bool:
    return isinstance(function, cst.FunctionDef) and any(
        last_name(d.decorator) in ("property", "cached_property") for d in function.decorators
    )


def _is_hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _text_part(node: cst.FormattedString, part: cst.FormattedStringText) -> str:
    """The text of a literal part of an f-string, with its escapes (`\\n`, `{{`) read."""
    if "\\" not in part.value:
        return part.value.replace("{{", "{").replace("}}", "}")
    prefix = node.prefix.lower().replace("f", "")
    try:
        text = ast.literal_eval(f"{prefix}{node.quote}{part.value}{node.quote}")
    except (ValueError, SyntaxError):
        text = part.value
    return text.replace("{{", "{").replace("}}", "}") if isinstance(text, str) else part.value
