"""Run many rules in one read-only walk of a libcst tree.

libcst's visitors rebuild every node as they go, and its batching inspects each visitor instance
for hooks. Rules only read, so this walk follows the nodes' own fields (skipping whitespace and
punctuation) and looks hooks up once per rule class: together several times faster.
Hooks keep libcst's names: visit_<Node>(node) before the children, leave_<Node>(node) after.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from functools import cache

import libcst as cst

_LAYOUT_FIELDS = {
    "lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer", "comma",
    "semicolon", "trailing_whitespace", "newline", "equal", "colon", "dot", "at", "star",
    "whitespace_before_colon", "asynchronous",
}  # fmt: skip


@cache
def _hooks(visitor_class: type) -> tuple[tuple[str, str, str], ...]:
    """(method name, "visit" or "leave", node type name) for each hook of the class."""
    hooks = []
    for name in dir(visitor_class):
        kind, _, node_type = name.partition("_")
        if kind in ("visit", "leave") and "_" not in node_type and hasattr(cst, node_type):
            hooks.append((name, kind, node_type))
    return tuple(hooks)


@cache
def _child_fields(node_class: type) -> tuple[str, ...]:
    return tuple(
        field.name
        for field in dataclasses.fields(node_class)
        if field.name not in _LAYOUT_FIELDS and not field.name.startswith("whitespace")
    )


def run_batched(module: cst.Module, visitors: list) -> None:
    """Call every visitor's hooks on every node of `module`, in source order."""
    on_visit, on_leave = defaultdict(list), defaultdict(list)
    for visitor in visitors:
        for name, kind, node_type in _hooks(type(visitor)):
            (on_visit if kind == "visit" else on_leave)[node_type].append(getattr(visitor, name))
    plans: dict[type, tuple] = {}  # node class -> (its visit hooks, its leave hooks)
    stack: list = [module]  # nodes to visit, and (leave hooks, node) to leave
    while stack:
        entry = stack.pop()
        if type(entry) is tuple:
            hooks, node = entry
            for hook in hooks:
                hook(node)
            continue
        node_class = type(entry)
        plan = plans.get(node_class)
        if plan is None:
            name = node_class.__name__
            plan = plans[node_class] = (tuple(on_visit[name]), tuple(on_leave[name]))
        for hook in plan[0]:
            hook(entry)
        if plan[1]:
            stack.append((plan[1], entry))
        children = child_nodes(entry)
        children.reverse()
        stack += children


@cache
def _is_node_type(value_type: type) -> bool:
    """isinstance(x, cst.CSTNode) through the ABC machinery is slow; types are few."""
    return issubclass(value_type, cst.CSTNode)


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children that carry meaning (no whitespace or punctuation), in field order."""
    children = []
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        value_type = type(value)
        if value_type is tuple or value_type is list:
            children.extend(item for item in value if _is_node_type(type(item)))
        elif _is_node_type(value_type):
            children.append(value)
    return children


def descendants(node: cst.CSTNode, into=None):
    """The node and the nodes below it, in source order, without recursion (a chain of a
    thousand `+` is as deep as that); `into(n)` False: skip what is below `n`."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if into is None or into(current):
            stack.extend(reversed(child_nodes(current)))
