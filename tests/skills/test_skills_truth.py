"""Every command, path, flag, op, pass, API, audit code and excerpt the skills name is true of this
repository; every list that claims to be complete is, both ways; and a SKILL.md names nothing of
it except through references/project.md."""

from __future__ import annotations

import re

import pytest
from skill_claims import (
    PROJECT_WORDS,
    SHELL,
    Source,
    audit_codes,
    audit_findings,
    check_api,
    check_call,
    check_command,
    check_pipeline,
    classify,
    command_lines,
    command_outputs,
    excerpt_problem,
    ir_ops,
    known_flags,
    list_problem,
    project_sources,
    python_block_is_parsed,
    registries,
    resolve_path,
    sources,
)

from compiler.ir.registry import OPS
from skills.markdown import section, table

SOURCES = sources()


def _spans(kind: str, sources: list[Source] = SOURCES):
    for source in sources:
        for span in source.document.spans:
            if classify(span.text) == kind:
                yield source, span


def _fences(sources: list[Source] = SOURCES):
    for source in sources:
        for fence in source.document.fences:
            yield source, fence


def _report(problems: list[str]) -> str:
    return "stale skill claims:\n" + "\n".join(problems)


def test_the_skills_make_claims_of_every_kind() -> None:
    kinds = {classify(span.text) for source in SOURCES for span in source.document.spans}
    assert {"command", "path", "flag", "op", "pipeline", "api", "code", "call"} <= kinds


def test_every_project_file_quotes_real_code() -> None:
    """Worked examples come from this repository: each project.md has checked excerpts."""
    for source in SOURCES:
        if source.skill is not None and source.document.path.name == "project.md":
            excerpts = [fence for fence in source.document.fences if "from" in fence.attrs]
            assert excerpts, f"{source.where(0)}: no `from=` excerpt in its worked examples"


def test_commands_run_as_written() -> None:
    problems = []
    for source, fence in _fences():
        if fence.language in SHELL:
            for command, line in command_lines(fence):
                problem = check_command(command, source.skill)
                problems += [f"{source.where(line)}: {problem}"] if problem else []
    for source, span in _spans("command"):
        problem = check_command(span.text, source.skill)
        problems += [f"{source.where(span.line)}: {problem}"] if problem else []
    for source in SOURCES:
        for row in table(source.document, "Commands") if source.project_facts else []:
            problem = check_command(row["command"], source.skill)
            problems += [f"{source.where(0)}: Commands[{row['key']}]: {problem}"] if problem else []
    assert not problems, _report(problems)


def test_paths_exist() -> None:
    problems = [
        f"{source.where(span.line)}: no such file or folder {span.text!r}"
        for source, span in _spans("path")
        if not PROJECT_WORDS.search(span.text) and resolve_path(span.text, source.skill) is None
    ]
    assert not problems, _report(problems)


def test_flags_exist() -> None:
    flags = known_flags()
    problems = [
        f"{source.where(span.line)}: no parser takes {span.text.split()[0]!r}"
        for source, span in _spans("flag")
        if span.text.split()[0].split("=")[0] not in flags
    ]
    assert not problems, _report(problems)


def test_op_names_are_in_the_registry() -> None:
    problems = []
    for source, span in _spans("op"):
        if span.struck and span.text in OPS:
            problems.append(f"{source.where(span.line)}: {span.text} is struck out but registered")
        elif not span.struck and span.text not in OPS:
            problems.append(f"{source.where(span.line)}: {span.text} is not a registered op")
    for source, fence in _fences():
        if fence.language == "mlir":
            for op, offset in ir_ops(fence.text):
                if op not in OPS:
                    problems.append(f"{source.where(fence.line + offset)}: unregistered op {op}")
    assert not problems, _report(problems)


def test_passes_and_pipelines_are_registered() -> None:
    problems = [
        f"{source.where(span.line)}: {problem}"
        for source, span in _spans("pipeline")
        if (problem := check_pipeline(span.text))
    ]
    assert not problems, _report(problems)


def test_python_apis_resolve() -> None:
    problems = [
        f"{source.where(span.line)}: {problem}"
        for source, span in _spans("api")
        if (problem := check_api(span.text))
    ]
    assert not problems, _report(problems)


def test_audit_codes_exist() -> None:
    codes = audit_codes()
    problems = [
        f"{source.where(span.line)}: the audit has no code {span.text}"
        for source, span in _spans("code")
        if span.text not in codes
    ]
    assert not problems, _report(problems)


def test_calls_name_something_the_project_defines() -> None:
    facts = [source for source in SOURCES if source.project_facts]
    problems = [
        f"{source.where(span.line)}: {problem}"
        for source, span in _spans("call", facts)
        if (problem := check_call(span.text))
    ]
    assert not problems, _report(problems)


def test_excerpts_match_the_code_and_the_compiler_output() -> None:
    excerpts = [(source, fence) for source, fence in _fences() if "from" in fence.attrs]
    commands = {fence.attrs["from"] for _, fence in excerpts if " " in fence.attrs["from"]}
    runnable = {command for command in commands if not check_command(command, None)}
    outputs = command_outputs(runnable)
    problems = [
        f"{source.where(fence.line)}: {problem}"
        for source, fence in excerpts
        if (problem := excerpt_problem(fence, source.skill, outputs))
    ]
    assert not problems, _report(problems)


def test_complete_lists_name_every_entry_of_their_registry_and_nothing_else() -> None:
    """A backend, pass, op, device or command added or removed fails here until the lists say so."""
    lists = [(source, fence) for source, fence in _fences() if "every" in fence.attrs]
    assert {fence.attrs["every"] for _, fence in lists} >= set(registries())
    problems = [
        f"{source.where(fence.line)}: {problem}"
        for source, fence in lists
        if (problem := list_problem(fence))
    ]
    assert not problems, _report(problems)


def test_the_audit_rejects_every_wrong_example() -> None:
    wrong = [(s, f) for s, f in _fences() if f.language == "python" and "wrong" in f.words]
    assert len(wrong) >= 5
    problems = [
        f"{source.where(fence.line)}: the audit accepts this wrong example"
        for source, fence in wrong
        if not audit_findings(fence)
    ]
    assert not problems, _report(problems)


def test_every_other_python_example_parses_and_passes_the_audit() -> None:
    problems = []
    for source, fence in _fences():
        if fence.language != "python" or "wrong" in fence.words or "from" in fence.attrs:
            continue
        problem = python_block_is_parsed(fence)
        findings = [] if problem else audit_findings(fence)
        problem = problem or "; ".join(f"{f.code} {f.message}" for f in findings)
        problems += [f"{source.where(fence.line)}: {problem}"] if problem else []
    assert not problems, _report(problems)


GENERIC = [source for source in SOURCES if not source.project_facts]


@pytest.mark.parametrize(
    "source", GENERIC, ids=lambda s: str(s.document.path.relative_to(s.skill.parent))
)
def test_generic_texts_name_nothing_of_this_project(source: Source) -> None:
    problems = []
    lines = source.document.body.splitlines()
    for offset, line in enumerate(lines):
        for word in PROJECT_WORDS.findall(line):
            problems.append(f"{source.where(source.document.body_start + offset)}: names {word!r}")
    for span in source.document.spans:
        kind = classify(span.text)
        if kind in ("api", "pipeline", "code"):
            problems.append(f"{source.where(span.line)}: names the project's {kind} {span.text!r}")
        if kind == "path" and _project_only(span.text, source):
            problems.append(f"{source.where(span.line)}: names the project path {span.text!r}")
        if kind == "command" and not re.match(r"python3? (\$SKILL_DIR/)?scripts/", span.text):
            problems.append(f"{source.where(span.line)}: a project command {span.text!r}")
    for fence in source.document.fences:
        if "from" in fence.attrs or "every" in fence.attrs:
            problems.append(
                f"{source.where(fence.line)}: quotes the project; move it to project.md"
            )
        for command, line in command_lines(fence) if fence.language in SHELL else ():
            if not re.match(r"python3? (\$SKILL_DIR/)?scripts/", command):
                problems.append(f"{source.where(line)}: a project command {command!r}")
    assert not problems, _report(problems)


def _project_only(text: str, source: Source) -> bool:
    found = resolve_path(text, source.skill)
    return found is not None and source.skill not in found.parents


def test_commands_tables_agree_across_skills() -> None:
    seen: dict[str, tuple[str, str]] = {}
    problems = []
    for source in SOURCES:
        if source.skill is None or source.document.path.name != "project.md":
            continue
        for row in table(source.document, "Commands"):
            first = seen.setdefault(row["key"], (row["command"], source.where(0)))
            if first[0] != row["command"]:
                problems.append(
                    f"{source.where(0)}: {row['key']} is {row['command']!r} here, "
                    f"{first[0]!r} in {first[1]}"
                )
    assert not problems, _report(problems)


def test_the_code_makes_none_of_the_common_mistakes() -> None:
    """The identifiers a Common mistakes table warns about are defined nowhere in the compiler."""
    compiler = {path: text for path, text in project_sources().items() if "compiler" in path.parts}
    problems = []
    for source in SOURCES:
        if source.skill is None or source.document.path.name != "SKILL.md":
            continue
        rows = section(source.document, "Common mistakes").splitlines()
        for name in re.findall(r"`([A-Za-z_]\w*)`", "\n".join(r for r in rows if r[:1] == "|")):
            if "_" not in name.strip("_") and name.islower():
                continue  # a plain word, not an identifier someone would define
            definition = re.compile(rf"^\s*(?:def|class)\s+{name}\b|^{name}\s*=", re.M)
            for path, text in compiler.items():
                if definition.search(text):
                    problems.append(f"{source.where(0)}: {path} defines {name}")
    assert not problems, _report(problems)
