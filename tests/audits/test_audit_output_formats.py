"""Text, JSON and SARIF 2.1.0 renderings of the same findings."""

from __future__ import annotations

import json
from pathlib import Path

from audits.catalogue import all_rules
from audits.findings import Finding
from audits.output import render_json, render_sarif, render_text

FINDINGS = [
    Finding("compiler/passes/x.py", 3, 5, "LWA001", "function 'lower_mm' ...; do this", "lower_mm"),
    Finding("trace/cuda/matmul", 2, 1, "LWT002", "IR not verified after ssa.cse; fix", "ssa.cse"),
]


def test_text_is_one_finding_a_line_then_a_summary():
    lines = render_text(FINDINGS, "lowering-audit: findings 2").splitlines()
    assert lines[0] == "compiler/passes/x.py:3:5 LWA001 function 'lower_mm' ...; do this"
    assert lines[1].startswith("trace/cuda/matmul:2:1 LWT002 ")
    assert lines[-1] == "lowering-audit: findings 2"


def test_json_holds_every_field():
    document = json.loads(render_json(FINDINGS, {"files_scanned": 7}))
    assert document["files_scanned"] == 7
    assert document["findings"][0] == {
        "path": "compiler/passes/x.py",
        "line": 3,
        "column": 5,
        "code": "LWA001",
        "message": "function 'lower_mm' ...; do this",
        "subject": "lower_mm",
    }


def test_sarif_has_the_2_1_0_structure(tmp_path: Path):
    log = json.loads(render_sarif(FINDINGS, tmp_path))
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "lowering-audit"
    assert [rule["id"] for rule in rules] == [info.code for info in all_rules()]
    assert all(rule["shortDescription"]["text"] and rule["help"]["text"] for rule in rules)
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file://")
    for result, finding in zip(run["results"], FINDINGS, strict=True):
        assert result["ruleId"] == finding.code
        assert rules[result["ruleIndex"]]["id"] == finding.code
        assert result["level"] == "error" and result["message"]["text"] == finding.message
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == finding.path
        assert physical["region"] == {"startLine": finding.line, "startColumn": finding.column}


def test_sarif_without_findings_still_lists_the_rules(tmp_path: Path):
    (run,) = json.loads(render_sarif([], tmp_path))["runs"]
    assert run["results"] == [] and run["tool"]["driver"]["rules"]
