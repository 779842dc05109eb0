"""Findings as a SARIF 2.1.0 log, with every code in the tool's rule table."""

from __future__ import annotations

import json
from pathlib import Path

from audits.catalogue import all_rules
from audits.findings import Finding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "lowering-audit"


def render_sarif(findings: list[Finding], root: Path) -> str:
    rules = all_rules()
    index = {info.code: position for position, info in enumerate(rules)}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "rules": [
                            {
                                "id": info.code,
                                "name": info.name,
                                "shortDescription": {"text": info.summary},
                                "help": {"text": info.fix},
                                "defaultConfiguration": {"level": "error"},
                            }
                            for info in rules
                        ],
                    }
                },
                "originalUriBaseIds": {"SRCROOT": {"uri": root.resolve().as_uri() + "/"}},
                "results": [_result(finding, index) for finding in findings],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _result(finding: Finding, index: dict[str, int]) -> dict:
    result = {
        "ruleId": finding.code,
        "level": "error",
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": finding.path, "uriBaseId": "SRCROOT"},
                    "region": {"startLine": finding.line, "startColumn": finding.column},
                }
            }
        ],
        "partialFingerprints": {"subject/v1": f"{finding.code}:{finding.path}:{finding.subject}"},
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    return result
