"""The constant evaluator: what value an expression has when it is built only from constants.

It reads literals, `+ * %`, f-strings, `str.format`, `"".join`, slicing and reversal, str and
bytes methods, `chr`/`bytes`/`map` and comprehensions over constants, decoders (base64, hex,
zlib, codecs, ...) and names bound once to such values: local names bound so far, module-level
names, class attributes (`Kinds.MATMUL`, `self.KIND`), imported constants, and helper functions
or lambdas that only return an expression (`names.py` resolves names, `calls.py` computes calls).
Recursion, sizes, decompression and the work spent on one question are bounded, and a name that
refers to itself evaluates to UNKNOWN.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from audits.evaluation.bindings import ModuleBindings, ProjectBindings
from audits.evaluation.calls import CallEvaluation
from audits.evaluation.names import NameResolution
from audits.evaluation.operations import binary, format_value
from audits.evaluation.scopes import ScopeTracker
from audits.evaluation.values import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_STEPS,
    UNKNOWN,
    Opaque,
    fits,
    is_hashable,
    is_known,
    items_of,
)

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


class Evaluator(NameResolution, CallEvaluation):
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
                items = items_of(value)
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
            if not is_known(key) or not is_hashable(key):
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
                    return base.get(key, UNKNOWN) if is_hashable(key) else UNKNOWN
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
        items = items_of(self.value(loop.iter, env))
        if items is None or len(items) > MAX_ITEMS:
            return UNKNOWN
        values = []
        for item in items:
            value = self.value(node.elt, {**env, loop.target.value: item})
            if not is_known(value):
                return value if isinstance(value, Opaque) else UNKNOWN
            values.append(value)
        return tuple(values)


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
