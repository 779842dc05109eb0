"""FileCheck-style pass tests: each `cases/*.mlir` section is IR plus directives in comments.

    // RUN: <pipeline string>          the passes to run (required)
    // TARGET: -<op> <op>:<dtype>,<dtype> <name>=<int> <name>=<word>,<word>
                                       stand-in target without some ops, taking some ops on the
                                       listed dtypes only, with some capabilities (a number, or
                                       a set of words)
    // CHECK: <text>                   a later line contains <text>
    // CHECK-NEXT: <text>              the line right after the previous match contains <text>
    // CHECK-NOT: <text>               no line between the neighbouring matches contains <text>
    // ERROR: <text>                   the pipeline fails with a message containing <text>

Sections are separated by `// -----`. The output must also print back identically after parsing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.ir import parse_kernel, print_kernel
from compiler.passes import PassContext, PassManager, parse_pipeline

CASES = Path(__file__).parent / "cases"
_DIRECTIVE = re.compile(r"^\s*// (RUN|TARGET|CHECK|CHECK-NEXT|CHECK-NOT|ERROR): ?(.*)$")


def _sections() -> list:
    return [
        pytest.param(text, id=f"{path.stem}-{i}")
        for path in sorted(CASES.glob("*.mlir"))
        for i, text in enumerate(path.read_text().split("// -----\n"))
    ]


@pytest.mark.parametrize("text", _sections())
def test_case(text: str, make_target) -> None:
    directives = [m.groups() for m in map(_DIRECTIVE.match, text.splitlines()) if m]
    source = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    (pipeline,) = [arg for kind, arg in directives if kind == "RUN"]
    target_spec = " ".join(arg for kind, arg in directives if kind == "TARGET").split()
    illegal = tuple(word[1:] for word in target_spec if word.startswith("-"))
    capabilities = dict(word.split("=") for word in target_spec if "=" in word)
    dtypes = dict(word.split(":") for word in target_spec if ":" in word)
    target = make_target(
        illegal,
        {op: frozenset(names.split(",")) for op, names in dtypes.items()},
        **{k: int(v) if v.isdigit() else frozenset(v.split(",")) for k, v in capabilities.items()},
    )
    manager = PassManager(parse_pipeline(pipeline), PassContext(target))
    kernel = parse_kernel(source)
    errors = [arg for kind, arg in directives if kind == "ERROR"]
    if errors:
        with pytest.raises(Exception, match=re.escape(errors[0])):
            manager.run(kernel)
        return
    manager.run(kernel)
    output = print_kernel(kernel)
    assert print_kernel(parse_kernel(output)) == output
    filecheck(output, [(kind, arg) for kind, arg in directives if kind.startswith("CHECK")])


def filecheck(output: str, checks: list[tuple[str, str]]) -> None:
    lines = output.splitlines()
    cursor, forbidden = 0, []
    for kind, pattern in checks:
        if kind == "CHECK-NOT":
            forbidden.append(pattern)
            continue
        if kind == "CHECK-NEXT":
            found = cursor if cursor < len(lines) and pattern in lines[cursor] else None
        else:
            found = next((i for i in range(cursor, len(lines)) if pattern in lines[i]), None)
        assert found is not None, f"{kind}: {pattern!r} not found from line {cursor + 1}:\n{output}"
        _absent(forbidden, lines[cursor:found], output)
        cursor, forbidden = found + 1, []
    _absent(forbidden, lines[cursor:], output)


def _absent(patterns: list[str], lines: list[str], output: str) -> None:
    for pattern in patterns:
        hits = [line for line in lines if pattern in line]
        assert not hits, f"CHECK-NOT: {pattern!r} found in {hits[0]!r}:\n{output}"
