"""Run the code audit: parse each file once, run every enabled rule in one traversal, then apply
suppressions and the baseline."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from audits.baseline import apply_baseline, load_baseline
from audits.config import AuditConfig
from audits.constants import ConstantIndex
from audits.discovery import discover_files, relative_path
from audits.findings import Finding
from audits.op_registry import load_registry_ops
from audits.rules import RULE_CODES, RULES, FileContext
from audits.rules.base import DocstringCollector
from audits.rules.batch import run_batched
from audits.suppressions import apply_suppressions


class NoFilesScanned(RuntimeError):
    """The paths held no Python file: a clean result would mean nothing."""


@dataclass
class AuditReport:
    findings: list[Finding]
    files: list[str]  # the scanned files, relative to the root
    accepted: int = 0  # findings the baseline accepted
    suppressed: int = 0  # findings inline suppressions covered
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return not self.findings


@dataclass
class _Source:
    path: str
    text: str
    module: cst.Module | None
    error: Finding | None = None


def audit_project(
    config: AuditConfig, paths: list[Path] | None = None, use_baseline: bool = True
) -> AuditReport:
    """Audit the configured paths (or `paths`); raises NoFilesScanned when there is nothing."""
    started = time.perf_counter()
    files = discover_files(config, paths)
    if not files:
        where = ", ".join(str(p) for p in paths) if paths else ", ".join(config.paths)
        raise NoFilesScanned(f"scanned no files under {where} (root {config.root})")
    registry_ops, registry_note = load_registry_ops(config)
    sources = [_read(file, config.root) for file in files]
    constants = ConstantIndex()
    for source in sources:
        if source.module is not None:
            constants.add_module(source.module)
    findings, suppressed = [], 0
    for source in sources:
        found, hidden = _audit_source(source, config, registry_ops, constants)
        findings += found
        suppressed += hidden
    report = AuditReport(findings, [source.path for source in sources], suppressed=suppressed)
    report.notes += [registry_note] if registry_note else []
    if use_baseline:
        _apply_baseline(report, config, scanned=set(report.files) if paths else None)
    report.findings.sort()
    report.seconds = time.perf_counter() - started
    return report


def audit_source(
    text: str,
    config: AuditConfig,
    path: str = "example.py",
    registry_ops: frozenset[str] | None = None,
) -> list[Finding]:
    """Audit one piece of source as if it were the file `path` (rule examples, tests)."""
    source = _parse(path, text)
    constants = ConstantIndex()
    if source.module is not None:
        constants.add_module(source.module)
    return sorted(_audit_source(source, config, registry_ops, constants)[0])


def _audit_source(
    source: _Source, config: AuditConfig, registry_ops, constants: ConstantIndex
) -> tuple[list[Finding], int]:
    if source.module is None:
        return [source.error], 0
    settings = config.settings_for(source.path, RULE_CODES)
    context = FileContext(source.path, config, settings, registry_ops, constants)
    rules = [rule(context) for rule in RULES if rule.info.code in settings.enabled]
    if not rules:
        return [], 0
    run_batched(source.module, [DocstringCollector(context), *rules])
    findings = []
    if context.reports:  # positions cost a second pass: only files with reports pay for it
        wrapper = MetadataWrapper(source.module, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        for report in context.reports:
            start = positions[report.node].start
            findings.append(
                Finding(
                    source.path,
                    start.line,
                    start.column + 1,
                    report.code,
                    report.message,
                    report.subject,
                )
            )
    return apply_suppressions(source.path, source.text, _unique(findings), RULE_CODES)


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per line, code and subject (a decorator and its call report the same thing)."""
    seen, unique = set(), []
    for finding in sorted(findings):
        key = (finding.line, finding.code, finding.subject)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


def _apply_baseline(report: AuditReport, config: AuditConfig, scanned: set[str] | None) -> None:
    baseline_file = config.root / config.baseline
    entries = load_baseline(baseline_file)
    if entries:
        baseline_path = relative_path(baseline_file, config.root)
        report.findings, report.accepted = apply_baseline(
            report.findings, entries, baseline_path, scanned
        )


def _read(file: Path, root: Path) -> _Source:
    path = relative_path(file, root)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        message = f"cannot read the file ({error}); the audit needs UTF-8 Python source"
        return _Source(path, "", None, Finding(path, 1, 1, "LWA000", message, "unreadable"))
    return _parse(path, text)


def _parse(path: str, text: str) -> _Source:
    try:
        return _Source(path, text, cst.parse_module(text))
    except cst.ParserSyntaxError as error:
        message = f"cannot parse ({error.message}); the audit needs valid Python to check it"
        finding = Finding(path, error.raw_line, error.raw_column + 1, "LWA000", message, "syntax")
        return _Source(path, text, None, finding)
