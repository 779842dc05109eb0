"""`python -m audits`: exit 0 when clean, 1 on findings, 2 when it cannot audit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from audit_support import FIXTURE_PROJECT, REPOSITORY

from audits import cli


def _check(capsys, *arguments: str) -> tuple[int, str, str]:
    status = cli.main(["check", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_clean_project_exits_0(capsys):
    status, out, _ = _check(capsys, "--config", str(FIXTURE_PROJECT / "pyproject.toml"))
    assert status == 0
    assert out.startswith("lowering-audit: findings 0, files_scanned 11, accepted 1, suppressed 1")


def test_findings_exit_1_with_path_line_col_code_message(capsys, project: Path):
    (project / "minicc" / "fused.py").write_text("def lower_flash_attention(kernel): ...\n")
    status, out, _ = _check(capsys, "--config", str(project / "pyproject.toml"))
    assert status == 1
    assert out.splitlines()[0].startswith("minicc/fused.py:1:5 LWA001 function ")


def test_paths_on_the_command_line_narrow_the_scan(capsys, project: Path, monkeypatch):
    (project / "minicc" / "fused.py").write_text("def lower_flash_attention(kernel): ...\n")
    monkeypatch.chdir(project)
    status, out, _ = _check(capsys, "minicc/emitter.py")
    assert status == 0 and "files_scanned 1" in out


def test_json_and_sarif_outputs(capsys, project: Path):
    (project / "minicc" / "fused.py").write_text("def lower_flash_attention(kernel): ...\n")
    config = str(project / "pyproject.toml")
    status, out, _ = _check(capsys, "--config", config, "--format", "json")
    assert status == 1 and json.loads(out)["findings"][0]["code"] == "LWA001"
    status, out, _ = _check(capsys, "--config", config, "--format", "sarif")
    assert status == 1 and json.loads(out)["runs"][0]["results"][0]["ruleId"] == "LWA001"


def test_baseline_format_prints_entries_to_accept(capsys, project: Path):
    (project / "minicc" / "fused.py").write_text("def lower_flash_attention(kernel): ...\n")
    status, out, _ = _check(capsys, "--config", str(project / "pyproject.toml"), "-f", "baseline")
    assert status == 1 and 'subject = "lower_flash_attention"' in out and 'reason = ""' in out


def test_scanning_no_files_exits_2(capsys, tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.lowering-audit]\npaths = ["src"]\n')
    status, _, err = _check(capsys, "--config", str(tmp_path / "pyproject.toml"))
    assert status == 2 and "scanned no files" in err


def test_bad_configuration_exits_2(capsys, tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.lowering-audit]\npathz = ["src"]\n')
    status, _, err = _check(capsys, "--config", str(tmp_path / "pyproject.toml"))
    assert status == 2 and "unknown key" in err


def test_internal_error_exits_2(capsys, monkeypatch):
    def broken(*arguments, **options):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "audit_project", broken)
    status, _, err = _check(capsys, "--config", str(FIXTURE_PROJECT / "pyproject.toml"))
    assert status == 2 and "internal error" in err and "boom" in err


def test_rules_lists_every_code(capsys):
    assert cli.main(["rules", "--format", "json"]) == 0
    listed = {rule["code"] for rule in json.loads(capsys.readouterr().out)}
    assert {"LWA000", "LWA001", "LWA006", "LWT001", "LWT006"} <= listed


@pytest.mark.parametrize(("planted", "status"), [("", 0), ("def lower_gemm(k): ...\n", 1)])
def test_module_entry_point_exit_status(project: Path, planted: str, status: int):
    (project / "minicc" / "extra.py").write_text(planted or "x = 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "audits", "check"],
        cwd=project,
        env={"PYTHONPATH": str(REPOSITORY), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == status, done.stdout + done.stderr
