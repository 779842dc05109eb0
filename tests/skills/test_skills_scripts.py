"""Each skill script on real inputs from this repository (IR files, traces, audit output), run in
this process through its `main`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from skill_claims import REPO, SKILLS, script_module

import audits.cli
from compiler.backends.lowering import lower_unified_ssa_artifact
from compiler.ir import parse_kernel

PARITY_BRANCH = REPO / "tests" / "backends" / "ir" / "parity_branch.ssa"


def script(skill: str, name: str):
    return script_module(SKILLS / skill / "scripts" / f"{name}.py")


def run(module, argv: list[str], capsys) -> tuple[int, str]:
    status = module.main(argv)
    return status, capsys.readouterr().out


# -- op census ------------------------------------------------------------------------------------


def test_census_counts_ops_by_dialect(capsys) -> None:
    census = script("compiler-ir-architecture", "op_census")
    status, out = run(census, ["--ssa", str(PARITY_BRANCH), "--expect", "scf.if"], capsys)
    assert status == 0
    assert "kernel parity_branch:" in out
    assert "if 2" in out and "yield 4" in out
    assert "not in the registry: none" in out


def test_census_reports_missing_and_unregistered_ops(tmp_path: Path, capsys) -> None:
    census = script("compiler-ir-architecture", "op_census")
    status, out = run(census, ["--ssa", str(PARITY_BRANCH), "--expect", "linalg.dot"], capsys)
    assert status == 1 and "missing expected ops: linalg.dot" in out
    bad = tmp_path / "bad.ssa"
    bad.write_text("kernel @k(%x: f32) {\n  %0 = nt.flash_attention(%x) : f32\n}\n")
    status, out = run(census, ["--ssa", str(bad)], capsys)
    assert status == 1 and "not in the registry: nt.flash_attention" in out
    assert run(census, ["--registry", "none", "--ssa", str(bad)], capsys)[0] == 0


# -- SSA outline ----------------------------------------------------------------------------------


def test_outline_keeps_structure_and_folds_address_math(capsys) -> None:
    outline = script("compiler-ssa-lowering", "ssa_outline")
    status, out = run(outline, ["--ssa", str(PARITY_BRANCH)], capsys)
    assert status == 0
    assert "scf.if(" in out and "scf.yield(" in out and "mem.store(" in out
    assert "address/mask op" in out and "index.program_id" not in out
    _, everything = run(outline, ["--all", "--ssa", str(PARITY_BRANCH)], capsys)
    assert "index.program_id" in everything and "address/mask" not in everything


# -- pipeline trace -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory) -> Path:
    artifact = lower_unified_ssa_artifact(parse_kernel(PARITY_BRANCH.read_text()), "triton")
    path = tmp_path_factory.mktemp("trace") / "trace.json"
    path.write_text(json.dumps(artifact.trace))
    return path


def test_trace_table_lists_every_pass_and_finds_no_problem(trace_file: Path, capsys) -> None:
    pipeline = script("compiler-pass-pipeline", "pipeline_trace")
    status, out = run(pipeline, ["--trace", str(trace_file)], capsys)
    assert status == 0 and "problem" not in out
    assert "ssa.select_schedule" in out and "ssa.lower_memory_scopes" in out


def test_trace_problems_are_reported(trace_file: Path, tmp_path: Path, capsys) -> None:
    trace = json.loads(trace_file.read_text())
    trace[2]["verified"] = False
    trace[3]["changed"] = not trace[3]["changed"]
    trace[4]["op_count_delta"] = {"arith.add": 7}
    broken = tmp_path / "broken.json"
    broken.write_text("// kernel parity_branch (triton, trace)\n" + json.dumps(trace))
    status, out = run(
        script("compiler-pass-pipeline", "pipeline_trace"), ["--trace", str(broken)], capsys
    )
    assert status == 1
    assert "not verified" in out and "IR text says otherwise" in out and "does not match" in out


def test_trace_diff_shows_what_a_pass_added(trace_file: Path, capsys) -> None:
    pipeline = script("compiler-pass-pipeline", "pipeline_trace")
    status, out = run(
        pipeline, ["--diff", "ssa.lower_memory_scopes", "--trace", str(trace_file)], capsys
    )
    assert status == 0
    assert '+  mem.store(%out, %5, %13, %7) {scope = "global"}' in out
    with pytest.raises(SystemExit, match="runs 2 time"):
        pipeline.main(["--diff", "ssa.canonicalize#3", "--trace", str(trace_file)])


# -- audit summary --------------------------------------------------------------------------------


def test_audit_summary_groups_real_findings(tmp_path: Path, capsys) -> None:
    planted = SKILLS / "compiler-lowering-audit" / "evals" / "files" / "fast_paths.py"
    findings, rules = tmp_path / "findings.json", tmp_path / "rules.json"
    assert audits.cli.main(["check", str(planted), "--format", "json", "-o", str(findings)]) == 1
    assert audits.cli.main(["rules", "--format", "json", "-o", str(rules)]) == 0
    summary = script("compiler-lowering-audit", "audit_summary")
    status, out = run(summary, ["--input", str(findings), "--rules", str(rules)], capsys)
    assert status == 1
    assert "LWA001 operator-named-definition" in out and "LWA002 operator-name-dispatch" in out
    assert out.count("do instead:") == len(
        {line[:6] for line in out.splitlines() if line[:3] == "LWA"}
    )
    assert "never suppress" in out


def test_audit_summary_of_a_clean_report(tmp_path: Path, capsys) -> None:
    clean, rules = tmp_path / "clean.json", tmp_path / "rules.json"
    clean.write_text(json.dumps({"version": 1, "files_scanned": 3, "findings": []}))
    rules.write_text("[]")
    summary = script("compiler-lowering-audit", "audit_summary")
    status, out = run(summary, ["--input", str(clean), "--rules", str(rules)], capsys)
    assert status == 0 and "0 finding(s) in 0 file(s) (3 scanned)" in out


# -- target coverage ------------------------------------------------------------------------------


def test_coverage_of_the_triton_target(capsys) -> None:
    coverage = script("compiler-multibackend-porting", "target_coverage")
    status, out = run(coverage, ["--target", "triton"], capsys)
    assert status == 0
    assert "rewritten  math.tanh -> arith.add," in out and "math.exp, select.where" in out
    assert "missing    index.meta" in out and "dot_min=16" in out
    assert run(coverage, ["--strict", "--target", "triton"], capsys)[0] == 1
    # Loop-level ops reach only targets without tile values (ssa.lower_tiles_to_loops).
    loop_level = ["mem.alloc", "mem.read", "mem.write", "mem.barrier", "scf.parallel", "scf.grid"]
    loop_level += ["mem.dot", "mem.copy", "mem.reduce", "mem.copy_box_in", "mem.copy_box_out"]
    loop_level += ["mem.load_lanes", "mem.store_lanes", "mem.owned_slots", "mem.owned_position"]
    loop_level += ["index.thread_id", "index.num_threads", "index.meta"]
    allowed = [flag for op in loop_level for flag in ("--allow", op)]
    assert run(coverage, ["--strict", "--target", "triton", *allowed], capsys)[0] == 0
    assert run(coverage, ["--target", "nowhere"], capsys)[0] == 2


def test_coverage_routes_through_generic_rewrites() -> None:
    coverage = script("compiler-multibackend-porting", "target_coverage")
    from compiler.backends.registry import TARGETS
    from compiler.passes.helpers.decompositions import DECOMPOSITIONS

    legal = set(TARGETS["triton"].legal_ops) - {"math.exp2"}
    assert coverage.route("math.exp2", legal, DECOMPOSITIONS) == [
        "arith.constant",
        "arith.mul",
        "math.exp",
    ]
    assert coverage.route("math.exp2", legal - {"math.exp"}, DECOMPOSITIONS) is None  # a cycle


# -- roofline -------------------------------------------------------------------------------------


def test_roofline_of_a_large_matmul(capsys) -> None:
    roofline = script("compiler-performance-tuning", "roofline")
    argv = ["--matmul", "4096", "4096", "4096", "--dtype-bytes", "2"]
    argv += ["--peak-tflops", "989", "--bandwidth-gbs", "4800", "--ms", "0.2"]
    status, out = run(roofline, argv, capsys)
    assert status == 0
    assert "intensity:   1365.33 FLOP/byte" in out and "bound:       compute" in out
    assert "69.5 % of the roofline" in out


def test_roofline_of_an_elementwise_kernel(capsys) -> None:
    roofline = script("compiler-performance-tuning", "roofline")
    argv = ["--elementwise", "1000", "--peak-tflops", "67", "--bandwidth-gbs", "4800"]
    status, out = run(roofline, argv, capsys)
    assert status == 0 and "bound:       memory" in out and "intensity:   0.08" in out
    with pytest.raises(SystemExit, match="give --flops"):
        roofline.main(["--peak-tflops", "1", "--bandwidth-gbs", "1"])


# -- validation report ----------------------------------------------------------------------------


def test_report_dry_run_lists_the_default_checks(capsys) -> None:
    report = script("compiler-validation-reporting", "validation_report")
    status, out = run(report, ["--dry-run"], capsys)
    assert status == 0
    assert out.splitlines() == [
        "lint: make lint",
        "audit: .venv/bin/python -m audits check",
        "test: make test",
    ]


def test_report_runs_a_check_and_writes_markdown(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(REPO)
    output = tmp_path / "report.md"
    report = script("compiler-validation-reporting", "validation_report")
    assert report.main(["--keys", "passes", "--output", str(output)]) == 0
    text = output.read_text()
    assert "- result: all checks passed" in text
    assert "| passes | `.venv/bin/ntc passes` | 0 |" in text
    assert "ssa.wrap_grid" in text and "## Not covered, risks, follow-ups" in text  # the tail
    failed = report.report(
        [{"key": "test", "command": "x", "status": 2, "seconds": 1.0, "tail": []}]
    )
    assert "- result: FAILED" in failed


# -- in another project ---------------------------------------------------------------------------


def test_census_serves_another_project_from_its_root(tmp_path: Path) -> None:
    """The skill copied next to another compiler: its registry imports from that project's root
    (no path of this repository set), and its commands run through the shell as written, with an
    escaped pipe in the table cell and a variable before the command."""
    skill = tmp_path / "skills" / "census"
    shutil.copytree(SKILLS / "compiler-ir-architecture" / "scripts", skill / "scripts")
    (skill / "references").mkdir()
    (skill / "references" / "project.md").write_text(
        "## Commands\n\n| key | command | what it does |\n| --- | --- | --- |\n"
        "| emit-ssa | `TOY_SHOWN=1 cat {file} \\| grep -v '^#'` | the program's IR |\n\n"
        "## APIs\n\n| key | API | what it is |\n| --- | --- | --- |\n"
        "| op-registry | `toyc_registry:OPS` | the op registry |\n"
    )
    (tmp_path / "toyc_registry.py").write_text('OPS = {"toy.add", "toy.store"}\n')
    (tmp_path / "program.ir").write_text(
        "# a comment the pipe drops\nkernel @k(%x: f32) {\n  %0 = toy.add(%x, %x) : f32\n"
        "  %1 = toy.softmax(%0) : f32\n  toy.store(%1)\n}\n"
    )
    census = [sys.executable, str(skill / "scripts" / "op_census.py")]
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [*census, "program.ir"], cwd=tmp_path, env=environment, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stderr  # toy.softmax is not in the registry
    assert "3 ops" in done.stdout and "not in the registry: toy.softmax" in done.stdout
    done = subprocess.run(
        [*census, "--registry", "no_such_module:OPS", "program.ir"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert "no_such_module:OPS does not import here" in done.stderr
    assert "Traceback" not in done.stderr
