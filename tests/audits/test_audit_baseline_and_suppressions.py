"""Accepted findings need reasons, and what accepts nothing any more is an error."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import audit_snippet, codes

from audits.baseline import load_baseline, render_baseline
from audits.config import ConfigError, load_config
from audits.engine import audit_project

FLAGGED = "def lower_matmul(kernel):\n    return kernel\n"


def _project(root: Path, source: str, baseline: str | None = None) -> Path:
    (root / "pyproject.toml").write_text('[tool.lowering-audit]\npaths = ["pkg"]\n')
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_text(source)
    if baseline is not None:
        (root / "lowering-audit-baseline.toml").write_text(baseline)
    return root / "pyproject.toml"


def _entry(reason: str, subject: str = "lower_matmul") -> str:
    return (
        f'[[accepted]]\ncode = "LWA001"\npath = "pkg/mod.py"\nsubject = "{subject}"\n'
        f'reason = "{reason}"\n'
    )


def test_baseline_accepts_a_finding_with_a_reason(tmp_path: Path):
    report = audit_project(load_config(_project(tmp_path, FLAGGED, _entry("kept for a demo"))))
    assert report.clean and report.accepted == 1


def test_baseline_entry_without_reason_is_an_error(tmp_path: Path):
    report = audit_project(load_config(_project(tmp_path, FLAGGED, _entry(""))))
    messages = [f.message for f in report.findings]
    assert codes(report.findings) == {"LWA000", "LWA001"}
    assert any("needs a reason" in message for message in messages)


def test_stale_baseline_entry_is_an_error(tmp_path: Path):
    baseline = _entry("kept for a demo") + "\n" + _entry("gone", subject="lower_softmax")
    report = audit_project(load_config(_project(tmp_path, FLAGGED, baseline)))
    (stale,) = report.findings
    assert stale.code == "LWA000" and "stale" in stale.message
    assert (stale.path, stale.line) == ("lowering-audit-baseline.toml", 7)


def test_partial_runs_leave_entries_for_other_files_alone(tmp_path: Path):
    pyproject = _project(tmp_path, FLAGGED, _entry("gone", subject="lower_softmax"))
    (tmp_path / "pkg" / "other.py").write_text("x = 1\n")
    report = audit_project(load_config(pyproject), [tmp_path / "pkg" / "other.py"])
    assert report.clean


def test_baseline_of_the_wrong_shape_is_a_configuration_error(tmp_path: Path):
    _project(tmp_path, FLAGGED, '[[accepted]]\ncode = "LWA001"\nline = 3\n')
    with pytest.raises(ConfigError):
        load_baseline(tmp_path / "lowering-audit-baseline.toml")


def test_rendered_baseline_round_trips_and_needs_reasons(tmp_path: Path):
    pyproject = _project(tmp_path, FLAGGED)
    findings = audit_project(load_config(pyproject)).findings
    (tmp_path / "lowering-audit-baseline.toml").write_text(render_baseline(findings))
    (entry,) = load_baseline(tmp_path / "lowering-audit-baseline.toml")
    assert (entry.code, entry.subject, entry.reason) == ("LWA001", "lower_matmul", "")


def test_suppression_with_reason_hides_the_finding():
    source = (
        "# lowering-audit: ignore[LWA001] reason: the demo keeps this name\n"
        "def lower_matmul(kernel): ...\n"
        "def emit_mm(kernel): ...  # lowering-audit: ignore[LWA001] reason: demo too\n"
    )
    assert audit_snippet(source) == []


def test_suppression_without_reason_does_not_apply_and_is_reported():
    source = "def lower_matmul(kernel): ...  # lowering-audit: ignore[LWA001]\n"
    findings = audit_snippet(source)
    assert codes(findings) == {"LWA000", "LWA001"}
    assert any("needs a reason" in f.message for f in findings)


@pytest.mark.parametrize(
    ("comment", "problem"),
    [
        ("# lowering-audit: ignore[LWA002] reason: wrong code", "matches no finding"),
        ("# lowering-audit: ignore[LWA999] reason: no such code", "unknown code"),
        ("# lowering-audit: ignore reason: no codes", "malformed"),
    ],
)
def test_suppression_problems_are_reported(comment: str, problem: str):
    findings = audit_snippet(f"def lower_matmul(kernel): ...  {comment}\n")
    assert any(f.code == "LWA000" and problem in f.message for f in findings)


def test_suppression_text_inside_a_string_is_not_a_suppression():
    source = 'NOTE = "# lowering-audit: ignore[LWA001] reason: x"\ndef lower_matmul(k): ...\n'
    assert codes(audit_snippet(source)) == {"LWA001"}
