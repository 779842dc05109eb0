"""Locality: the emitter spells a kernel op by op, so one op appended to the kernel's final SSA adds
that op's spelling to the source and changes nothing else.

A lookup that swaps in a kernel written beforehand (keyed on the IR's op counts, on a pattern of
ops, on a hash of the SSA text, on a cache of earlier output) answers the longer kernel otherwise or
not at all: the source changes beyond the new op, or the new op does not show. The op appended is
`arith.add(a, a)` of the kernel's first `index` argument `a`, its result unused; its spelling must
name `a`. The compiled source is the baseline (what the whole lowering gave, not only the emitter);
the `ssa-sha256:` line, which names the SSA, is left out of both sides. A kernel without ops (its
body a placeholder, `pass` or `;`, that the op replaces) or without an `index` argument is skipped.
"""

from __future__ import annotations

import difflib
import re

from audits.behaviour.difference import text_difference

MAX_LINES = 3  # an op's spelling: its statement, and at most a declaration or two
_HASH_LINE = re.compile(r"^.*ssa-sha256:.*\n", re.M)


def appended_difference(artifact, target) -> str:
    """What is wrong with the source of the kernel with one op appended, or "" when it is the
    compiled source with that op's lines added."""
    from compiler.backends.emitter import emit
    from compiler.ir import Builder, ScalarType, print_kernel
    from compiler.ir.parser import parse_kernel

    kernel = parse_kernel(artifact.ssa)
    argument = next((v for v in kernel.args if v.type == ScalarType("index")), None)
    if argument is None or not kernel.body.ops:  # an empty body is spelled by a placeholder
        return ""
    Builder(kernel.body).value("arith.add", argument, argument)
    text = print_kernel(kernel)
    before = _HASH_LINE.sub("", artifact.source).splitlines()
    after = _HASH_LINE.sub("", emit(parse_kernel(text), target, ssa=text)).splitlines()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    added, changed = [], False
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag == "insert":
            added += after[j1:j2]
        elif tag != "equal":
            changed = True
    named = any(re.search(rf"\b{re.escape(argument.name)}\b", line) for line in added)
    if not changed and named and len(added) <= MAX_LINES:
        return ""
    what = (
        f"appending `arith.add(%{argument.name}, %{argument.name})` to the final SSA "
        + ("changes lines it does not touch" if changed else f"adds {len(added)} line(s)")
        + ("" if named else f", none naming {argument.name}")
    )
    where = text_difference("\n".join(before), "\n".join(after), was="compiled ")
    return f"{what}: {where}"
