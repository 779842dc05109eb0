"""Parsing source for the audit, at the cost of the parse alone.

libcst checks every node it builds (`CSTNode.__post_init__` runs the node's `_validate`), which
guards trees that code assembles by hand; a tree its own parser builds is valid by construction,
and the check is a third of the parse (libcst's source says as much in a PERF note). The audit
only reads the trees it parses, so it parses with the check off, and only while it parses.
"""

from __future__ import annotations

import libcst as cst

_CHECKED_INIT = cst.CSTNode.__post_init__


def _unchecked_init(node: cst.CSTNode) -> None:
    """The parser's nodes need no check (see the module's docstring)."""


def parse_module(text: str) -> cst.Module:
    """`libcst.parse_module` without the per-node check; raises `cst.ParserSyntaxError` alike."""
    cst.CSTNode.__post_init__ = _unchecked_init
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = _CHECKED_INIT
