"""The truth checks are not vacuous: each one rejects a stale claim of its kind."""

from __future__ import annotations

import pytest
from skill_claims import (
    REPO,
    SKILLS,
    audit_findings,
    check_api,
    check_call,
    check_command,
    check_pipeline,
    classify,
    command_lines,
    excerpt_problem,
    list_problem,
    registries,
    resolve_path,
)

from skills.markdown import Fence

SKILL = SKILLS / "compiler-pass-pipeline"


def fence(language: str, text: str, *words: str, **attrs: str) -> Fence:
    return Fence(language, words, attrs, text, 1)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("make test", "command"),
        (".venv/bin/ntc compile FILE.py --emit ssa", "command"),
        ("--emit ssa", "flag"),
        ("linalg.dot", "op"),
        ("ssa.select_schedule{cap=32}", "pipeline"),
        ("compiler.ir.registry:OPS", "api"),
        ("LWA002", "code"),
        ("compiler/ir/registry.py", "path"),
        ("references/project.md", "path"),
        ("default_pipeline(backend)", "call"),
        ("tl.load", "other"),
        (".ssa", "other"),
        ("if target.name == 'x'", "other"),
    ],
)
def test_classify(text: str, kind: str) -> None:
    assert classify(text) == kind


@pytest.mark.parametrize(
    ("command", "stale"),
    [
        ("make test", False),
        ("make deploy", True),
        (".venv/bin/ntc compile compiler/suite/programs/matmul.py --emit ssa", False),
        (".venv/bin/ntc compile compiler/suite/programs/matmul.py --emit llvm", True),
        (".venv/bin/ntc compile compiler/suite/programs/nothing.py --emit ssa", True),
        (".venv/bin/ntc compile {file} --emit trace", False),
        (".venv/bin/ntc optimise", True),
        (".venv/bin/python -m audits check --format json", False),
        (".venv/bin/python -m audits check --colour", True),
        (".venv/bin/python -m no_such_module", True),
        (".venv/bin/python -m skills.validate --no-scripts", False),
        ("python scripts/pipeline_trace.py --diff ssa.canonicalize PROGRAM.py", False),
        ("python scripts/pipeline_trace.py --since ssa.canonicalize", True),
        ("python scripts/missing.py", True),
        ("python $SKILL_DIR/scripts/pipeline_trace.py --diff ssa.canonicalize PROGRAM.py", False),
        ("python $SKILL_DIR/scripts/missing.py", True),
        (".venv/bin/ntc-missing passes", True),
        ("frobnicate --all", True),
    ],
)
def test_check_command(command: str, stale: bool) -> None:
    assert (check_command(command, SKILL) is not None) == stale


def test_shell_blocks_are_split_into_commands() -> None:
    block = fence("sh", "# a comment\n$ make test   # the suite\nmake \\\n  lint\n")
    assert [command for command, _ in command_lines(block)] == ["make test", "make lint"]


def test_check_api_pipeline_and_call() -> None:
    assert check_api("compiler.ir.registry:OPS") is None
    assert check_api("compiler.passes.registry.default_pipeline(backend)") is None
    assert check_api("compiler.ir.registry:OPERATORS") is not None
    assert check_api("compiler.nowhere.thing") is not None
    assert check_pipeline("ssa.canonicalize,ssa.{backend}.optimize_schedule{num_warps=8}") is None
    assert check_pipeline("ssa.fuse_attention") is not None
    assert check_pipeline("ssa.canonicalize{max_rounds=3}") is not None
    assert check_call("lower_unified_ssa_artifact(kernel, backend)") is None
    assert check_call("lower_flash_attention(kernel)") is not None


def test_paths_resolve_with_placeholders() -> None:
    assert resolve_path("compiler/backends/<backend>/target.py", None) is not None
    assert resolve_path("scripts/pipeline_trace.py", SKILL) is not None
    assert resolve_path("compiler/backends/opencl/target.py", None) is None


def test_excerpts_must_match_in_order() -> None:
    source = REPO / "compiler" / "passes" / "registry.py"
    lines = [line for line in source.read_text().splitlines() if line.startswith("    ")]
    right = fence(
        "python", f"{lines[0]}\n...\n{lines[5]}", **{"from": "compiler/passes/registry.py"}
    )
    swapped = fence("python", f"{lines[5]}\n{lines[0]}", **{"from": "compiler/passes/registry.py"})
    # lines left out without a `...` where they were: the quote claims they are adjacent
    silent_gap = fence(
        "python", f"{lines[0]}\n{lines[5]}", **{"from": "compiler/passes/registry.py"}
    )
    assert excerpt_problem(right, None, {}) is None
    assert excerpt_problem(swapped, None, {}) is not None
    assert "as one run" in excerpt_problem(silent_gap, None, {})


def test_ir_excerpts_ignore_value_numbers_only() -> None:
    command = ".venv/bin/ntc compile compiler/suite/programs/vector_add.py --emit ssa"
    output = "  %29 = arith.add(%17, %28) : tile<f32[64]>\n"
    renumbered = fence("mlir", "  %3 = arith.add(%1, %2) : tile<f32[64]>", **{"from": command})
    other_type = fence("mlir", "  %3 = arith.add(%1, %2) : tile<f16[64]>", **{"from": command})
    assert excerpt_problem(renumbered, None, {command: output}) is None
    assert excerpt_problem(other_type, None, {command: output}) is not None


def test_the_audit_judges_python_blocks() -> None:
    assert audit_findings(fence("python", "def lower_softmax(kernel):\n    return kernel\n"))
    assert not audit_findings(fence("python", "def lower(kernel):\n    return kernel\n"))
    backend_check = "def f(target):\n    return target.name == 'cuda'\n"
    assert audit_findings(fence("python", backend_check))
    assert not audit_findings(fence("python", backend_check, path="compiler/backends/cuda/x.py"))


def test_a_complete_list_is_checked_both_ways() -> None:
    """ "The only backend is X" fails when there are four, and so does a fifth that is not there."""
    backends = registries()["backends"][1]
    assert len(backends) > 1
    assert list_problem(fence("text", ", ".join(backends), every="backends")) is None
    only_one = list_problem(fence("text", backends[0], every="backends"))
    assert f"omits {', '.join(backends[1:])}" in only_one
    assert "names opencl" in list_problem(
        fence("text", f"{' '.join(backends)} opencl", every="backends")
    )
    devices = "\n".join(f"{name}: cpu" for name in backends)
    assert "omits" in list_problem(fence("text", devices, every="devices"))
    pipeline = list(registries()["pipeline"][1])
    assert list_problem(fence("text", "\n".join(pipeline), every="pipeline")) is None
    assert list_problem(fence("text", "\n".join(pipeline[::-1]), every="pipeline")) is not None
    assert "no such list" in list_problem(fence("text", "x", every="kernels"))
