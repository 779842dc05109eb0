"""Calls the evaluator computes: builtins (`chr`, `bytes`, `str`, ...), str and bytes methods,
`map` and decoders over constants, and helper functions or lambdas whose body is one `return`.
A call it cannot compute that receives an encoded-looking literal returns an Opaque value.
"""

from __future__ import annotations

import re

import libcst as cst

from audits.evaluation.decoders import DECODER_FUNCTIONS, apply_codec, decode_function
from audits.evaluation.operations import TEXT_METHODS, builtin, maketrans, method
from audits.evaluation.values import UNKNOWN, Opaque, is_hashable, is_known, items_of, looks_encoded
from audits.syntax import dotted_name, first_statement_string, last_name

_BUILTINS = {
    "str", "repr", "chr", "ord", "int", "bytes", "bytearray", "len", "tuple", "list", "sorted",
    "reversed", "set", "frozenset", "format",
}  # fmt: skip
_SPECIAL_CALLS = {
    "str.maketrans", "bytes.maketrans", "bytes.fromhex", "bytearray.fromhex", "codecs.decode",
    "codecs.encode", "re.escape", "regex.escape",
}  # fmt: skip
_DICT_METHODS = {"get", "keys", "values"}


class CallEvaluation:
    """The part of the Evaluator that computes calls (it provides `value` and name lookups)."""

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
                size = "bytes" if isinstance(value, bytes) else "characters of encoded-looking text"
                return Opaque(f"{len(value)} {size} passed to {callee}()")
        return UNKNOWN

    def _arguments(self, node: cst.Call, env: dict):
        arguments, keywords = [], {}
        for argument in node.args:
            value = self.value(argument.value, env)
            if argument.star == "*":
                items = items_of(value)
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
        items = items_of(self.value(iterable, env))
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


def _dict_method(table: dict, name: str | None, arguments: list):
    if name == "get" and arguments and is_hashable(arguments[0]):
        default = arguments[1] if len(arguments) > 1 else None
        return table.get(arguments[0], default)
    if name == "keys" and not arguments:
        return tuple(table)
    if name == "values" and not arguments:
        return tuple(table.values())
    return UNKNOWN


def _returned_expression(function) -> cst.BaseExpression | None:
    """The expression a lambda, or a function whose body is one `return`, gives back."""
    if isinstance(function, cst.Lambda):
        return function.body
    if not isinstance(function, cst.FunctionDef) or not isinstance(
        function.body, cst.IndentedBlock
    ):
        return None
    statements = list(function.body.body)
    if first_statement_string(function.body) is not None:
        statements = statements[1:]
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    (small,) = statements[0].body if len(statements[0].body) == 1 else (None,)
    return small.value if isinstance(small, cst.Return) and small.value is not None else None
