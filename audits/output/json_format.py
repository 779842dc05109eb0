"""Findings as one JSON document."""

from __future__ import annotations

import json
from dataclasses import asdict

from audits.findings import Finding


def render_json(findings: list[Finding], summary: dict) -> str:
    document = {"version": 1, **summary, "findings": [asdict(finding) for finding in findings]}
    return json.dumps(document, indent=2) + "\n"
