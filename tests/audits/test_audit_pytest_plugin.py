"""The pytest plugin in another project: audit items from that project's own configuration."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from audit_support import REPOSITORY


def _pytest(project: Path, *arguments: str) -> subprocess.CompletedProcess:
    installed = any(e.value == "audits.pytest_plugin" for e in entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "audits.pytest_plugin"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider", *arguments],
        cwd=project,
        env={"PYTHONPATH": str(REPOSITORY), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_clean_project_gets_passing_audit_items(project: Path):
    done = _pytest(project, "-v")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "audit::minicc/emitter.py PASSED" in done.stdout
    assert "audit::minicc/passes/decompose_linalg.py PASSED" in done.stdout
    assert "audit::baseline PASSED" in done.stdout


def test_a_finding_fails_its_files_item_with_the_findings_text(project: Path):
    emitter = project / "minicc" / "emitter.py"
    planted = emitter.read_text() + '\n\nSPECIAL = {"softmax": None}\n'
    emitter.write_text(planted)
    line = len(planted.splitlines())
    done = _pytest(project, "-v")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "audit::minicc/emitter.py FAILED" in done.stdout
    assert "audit::minicc/ir.py PASSED" in done.stdout
    finding = f"minicc/emitter.py:{line}:12 LWA002 keys a table by operator name 'softmax'"
    assert finding in done.stdout


def test_a_stale_baseline_entry_fails_the_baseline_item(project: Path):
    frontend = project / "minicc" / "frontend.py"
    frontend.write_text(frontend.read_text().replace("_reduction", "_reducing"))
    done = _pytest(project, "-v")
    assert done.returncode == 1
    assert "audit::baseline FAILED" in done.stdout and "stale baseline entry" in done.stdout


def test_audit_items_can_be_selected_and_left_out(project: Path):
    assert "audit::" not in _pytest(project, "--collect-only", "--no-lowering-audit").stdout
    done = _pytest(project, "--collect-only", "-k", "emitter")
    assert "audit::minicc/emitter.py" in done.stdout and "audit::minicc/ir.py" not in done.stdout


def test_a_broken_configuration_is_one_failing_item(project: Path):
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('paths = ["minicc"]', 'paths = ["nothing"]'))
    done = _pytest(project, "-v")
    assert done.returncode == 1
    assert "audit::config FAILED" in done.stdout and "scanned no files" in done.stdout
