"""Module- and class-level string constants, so `KIND = "matmul"; if x == KIND` reads as "matmul".

The index spans the whole project: a constant defined in one module and imported into another
(`from .kinds import KIND`) resolves by its name.
"""

from __future__ import annotations

from collections import defaultdict

import libcst as cst

from audits.syntax import dotted_name, string_elements, string_value


class ConstantIndex:
    def __init__(self) -> None:
        self._by_name: dict[str, set[str]] = defaultdict(set)

    def add_module(self, module: cst.Module) -> None:
        for name, values in module_constants(module):
            self._by_name[name].update(values)

    def strings(self, node: cst.BaseExpression) -> tuple[str, ...]:
        """The strings a Name (`KIND`), a class attribute (`Kinds.MATMUL`) or a module attribute
        (`kinds.KIND`) stands for."""
        name = dotted_name(node)
        if name is None:
            return ()
        parts = name.split(".")
        values = self._by_name.get(".".join(parts[-2:])) or self._by_name.get(parts[-1], ())
        return tuple(sorted(values))


def module_constants(module: cst.Module):
    """(name, strings) for each top-level and class-level assignment of string literals."""
    for statement in module.body:
        yield from _assignments(statement, prefix="")
        if isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            for inner in statement.body.body:
                yield from _assignments(inner, prefix=statement.name.value + ".")


def _assignments(statement: cst.CSTNode, prefix: str):
    if not isinstance(statement, cst.SimpleStatementLine):
        return
    for small in statement.body:
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            target, value = small.target, small.value
        else:
            continue
        strings = _literal_strings(value)
        if isinstance(target, cst.Name) and strings:
            yield prefix + target.value, strings


def _literal_strings(value: cst.BaseExpression) -> list[str]:
    single = string_value(value)
    if single is not None:
        return [single]
    if isinstance(value, cst.Dict):
        keys = [string_value(e.key) for e in value.elements if isinstance(e, cst.DictElement)]
        return [key for key in keys if key is not None]
    return string_elements(value) or []
