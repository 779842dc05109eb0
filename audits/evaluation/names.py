"""Where the evaluator finds a name's value: the function scopes the walk is in, the module's
top level and class bodies (`Kinds.MATMUL`, `self.KIND`), and constants imported from another
audited module. A name bound more than once has one value per binding (`alternatives`), but no
single value; a name that refers to itself has none.
"""

from __future__ import annotations

import libcst as cst

from audits.evaluation.bindings import Binding, ModuleBindings
from audits.evaluation.values import UNKNOWN, items_of
from audits.syntax import dotted_name, last_name

_CONSTANT_NAMES = {"True": True, "False": False, "None": None}
_STANDARD_DECODER_MODULES = {"base64", "binascii", "zlib", "gzip", "lzma", "bz2", "codecs"}


class NameResolution:
    """The part of the Evaluator that resolves names (it provides `value` and `_helper`)."""

    def binding_values(self, binding: Binding) -> list:
        """The values one binding gives its name (several for a `for` target)."""
        if binding.kind == "value":
            return [self._bound_value(binding.node)]
        if binding.kind == "each":
            return list(items_of(self.value(binding.node)) or ())
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

    def _bindings(self, node: cst.CSTNode) -> list[tuple[NameResolution, Binding]]:
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
            owners = project.classes_named(self.bindings.imported[base])
            found = [
                pair for owner in owners for pair in self._class_bindings(owner, base, attribute)
            ]
            return found or self._project_bindings(attribute)
        return []

    def _name_bindings(self, name: str) -> list[tuple[NameResolution, Binding]]:
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
        evaluator = type(self)(self.state, owner, None)
        evaluator._class_context = class_name
        return [(evaluator, binding) for binding in attributes[attribute]]

    def _project_bindings(self, name: str) -> list[tuple[NameResolution, Binding]]:
        return [
            (self.state.module_level(owner), binding)
            for owner, binding in self.state.project.named(name)
            if owner is not self.bindings
        ]

    def _is_module_name(self, name: str) -> bool:
        """A name the module imports (`base64`, `zlib`) and binds to nothing else."""
        found = self.bindings.names.get(name, [])
        if self.scopes is not None and self.scopes.lookup(name) is not None:
            return False
        return name in self.bindings.imported or (not found and name in _STANDARD_DECODER_MODULES)


def _is_property(function) -> bool:
    return isinstance(function, cst.FunctionDef) and any(
        last_name(d.decorator) in ("property", "cached_property") for d in function.decorators
    )
