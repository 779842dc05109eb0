"""Renderings of findings: text for people and agents, JSON for tools, SARIF 2.1.0 for CI."""

from audits.output.json_format import render_json
from audits.output.sarif_format import render_sarif
from audits.output.text_format import render_text

__all__ = ["render_json", "render_sarif", "render_text"]
