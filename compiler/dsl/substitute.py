"""`ninetoothed.subs`: the same arrangement with some sizes and symbols given values.

A tensor is data (its view record, its shape, its dtype), so substitution rebuilds the graph: a
source gets a shape of the given sizes, every derived tensor the same view with each `Expr` field
substituted and each parent tensor rebuilt (once: shared parents stay shared).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from compiler.dsl.evaluate import environment
from compiler.dsl.symbol import Expr
from compiler.dsl.views import Node


def substitute(tensor: Node, subs: Mapping[Any, Any]) -> Node:
    """`tensor` with the sizes of source tensors and the Symbols in `subs` replaced by values
    (the keys and values `evaluate` takes); the graph is rebuilt with `tensor`'s own class."""
    return _Rebuild(environment(subs), type(tensor)).tensor(tensor)


class _Rebuild:
    def __init__(self, env: Mapping[str, int], tensor_class: type):
        self.env = dict(env)
        self.tensor_class = tensor_class
        self.done: dict[int, Node] = {}

    def tensor(self, tensor: Node) -> Node:
        if id(tensor) not in self.done:
            self.done[id(tensor)] = self._build(tensor)
        return self.done[id(tensor)]

    def _build(self, tensor: Node) -> Node:
        if tensor.view is None:
            options = {**tensor._init_options, "shape": self.value(tensor.shape)}
            return self.tensor_class(name=tensor.name, **options)
        view = tensor.view
        fields = {f.name: self.value(getattr(view, f.name)) for f in dataclasses.fields(view)}
        view = dataclasses.replace(view, **fields)
        return self.tensor_class._derived(view, self.value(tensor.shape), self.value(tensor.dtype))

    def value(self, value: object) -> object:
        if isinstance(value, self.tensor_class):
            return self.tensor(value)
        if isinstance(value, Expr):
            bound = value.substitute(self.env)
            return bound.value if bound.op == "const" else bound
        if isinstance(value, tuple | list):
            return type(value)(self.value(v) for v in value)
        return value
