"""Run the code audit: parse each file once, run every enabled rule in one traversal, then apply
suppressions and the baseline."""

from __future__ import annotations

import gc
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from audits.baseline import apply_baseline, load_baseline
from audits.config import AuditConfig
from audits.discovery import discover_files, relative_path
from audits.evaluation import EvaluationState, Evaluator, Origin, ProjectBindings, ScopeTracker
from audits.evaluation.bindings import bound_names
from audits.evaluation.values import excerpt
from audits.findings import Finding
from audits.op_registry import load_registry_ops
from audits.parallel import run_shared
from audits.parsing import parse_module
from audits.rules import RULE_CODES, RULES, FileContext
from audits.rules.base import DocstringCollector, Embedded
from audits.rules.batch import run_batched
from audits.suppressions import apply_suppressions

MAX_EMBEDDING_DEPTH = 2  # code decoded from code decoded from a file, and no deeper
RECURSION_LIMIT = 20_000


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
    with _auditing():
        return _audit_project(config, paths, use_baseline)


@contextmanager
def _auditing():
    """Parse trees are many small objects without cycles, so the collector only costs time; and
    libcst walks them recursively, so a long chain (`"a" + "b" + ...`) needs a deeper stack."""
    collecting, limit = gc.isenabled(), sys.getrecursionlimit()
    gc.disable()
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
        if collecting:
            gc.enable()


def _audit_project(config: AuditConfig, paths: list[Path] | None, use_baseline: bool):
    started = time.perf_counter()
    files = discover_files(config, paths)
    if not files:
        where = ", ".join(str(p) for p in paths) if paths else ", ".join(config.paths)
        raise NoFilesScanned(f"scanned no files under {where} (root {config.root})")
    share = _Share(config)
    results, (_, registry_note) = run_shared(
        files,
        weight=lambda file: file.stat().st_size,
        first=share.parse,
        then=share.audit,
        common=lambda: load_registry_ops(config),  # in a child process, while this one parses
    )
    findings = [finding for found, _ in results for finding in found]
    suppressed = sum(hidden for _, hidden in results)
    scanned = [relative_path(file, config.root) for file in files]
    report = AuditReport(findings, scanned, suppressed=suppressed)
    report.notes += [registry_note] if registry_note else []
    if use_baseline:
        _apply_baseline(report, config, scanned=set(report.files) if paths else None)
    report.findings.sort()
    report.seconds = time.perf_counter() - started
    return report


class _Share:
    """One process's part of a project audit (see audits/parallel.py): it parses its files,
    learns from the other processes which names their files bind, and audits its files."""

    def __init__(self, config: AuditConfig) -> None:
        self.config = config
        self.sources: list[_Source] = []
        self.project = ProjectBindings(load=self._load)

    def _load(self, path: str) -> cst.Module | None:
        return _read(self.config.root / path, self.config.root).module

    def parse(self, share: list[tuple[int, Path]]) -> dict[str, set[str]]:
        """Its files parsed; returns what they bind, for the other processes."""
        self.sources = [_read(file, self.config.root) for _, file in share]
        for source in self.sources:
            if source.module is not None:
                self.project.add(source.path, source.module)
        return {path: bound_names(bindings) for path, bindings in self.project.modules.items()}

    def audit(self, share, summaries: list[dict[str, set[str]]], registry) -> list:
        """(findings, suppressed) of each of its files."""
        for summary in summaries:
            for path, names in summary.items():
                if path not in self.project.modules:
                    self.project.expect(path, names)
        state = _AuditState(self.project)
        return [_audit_source(source, self.config, registry[0], state) for source in self.sources]


def audit_source(
    text: str,
    config: AuditConfig,
    path: str = "example.py",
    registry_ops: frozenset[str] | None = None,
) -> list[Finding]:
    """Audit one piece of source as if it were the file `path` (rule examples, tests)."""
    with _auditing():
        source = _parse(path, text)
        state = _evaluation_state([source])
        return sorted(_audit_source(source, config, registry_ops, state)[0])


def _evaluation_state(sources: list[_Source]) -> _AuditState:
    """One index of every module's bindings, so that imported constants resolve."""
    project = ProjectBindings()
    for source in sources:
        if source.module is not None:
            project.add(source.path, source.module)
    return _AuditState(project)


class _AuditState(EvaluationState):
    """The evaluation state of one audit, with the positions of the modules it reports in."""

    def __init__(self, project: ProjectBindings) -> None:
        super().__init__(project)
        self._positions: dict[int, object] = {}

    def positions(self, module: cst.Module):
        if id(module) not in self._positions:
            wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
            self._positions[id(module)] = wrapper.resolve(PositionProvider)
        return self._positions[id(module)]


def _audit_source(
    source: _Source, config: AuditConfig, registry_ops, state: _AuditState
) -> tuple[list[Finding], int]:
    if source.module is None:
        return [source.error], 0
    try:
        findings = _rule_findings(source, config, registry_ops, state, depth=0)
    except RecursionError:
        message = (
            "nested too deeply for the audit to read (Python's recursion limit); split the "
            "expression into named parts so that the audit can check it"
        )
        return [Finding(source.path, 1, 1, "LWA000", message, "too deep")], 0
    return apply_suppressions(source.path, source.text, _unique(findings), RULE_CODES)


def _rule_findings(
    source: _Source, config: AuditConfig, registry_ops, state: _AuditState, depth: int
) -> list[Finding]:
    settings = config.settings_for(source.path, RULE_CODES)
    scopes = ScopeTracker()
    bindings = state.project.modules.get(source.path) or state.project.add(
        source.path, source.module
    )
    evaluator = Evaluator(state, bindings, scopes)
    context = FileContext(source.path, config, settings, registry_ops, evaluator, depth)
    rules = [rule(context) for rule in RULES if rule.info.code in settings.enabled]
    if not rules:
        return []
    run_batched(source.module, [scopes, DocstringCollector(context), *rules])
    if not context.reports and not context.embedded:
        return []
    positions = state.positions(source.module)  # a second pass: only files with reports pay
    findings = []
    for report in context.reports:
        start = positions[report.node].start
        message = f"{report.what}{_built_at(report.origin, state)}; {report.fix}"
        findings.append(
            Finding(source.path, start.line, start.column + 1, report.code, message, report.subject)
        )
    for embedded in context.embedded:
        findings += _embedded_findings(
            embedded, source.path, positions, config, registry_ops, depth
        )
    return findings


def _embedded_findings(
    embedded: Embedded, path: str, positions, config: AuditConfig, registry_ops, depth: int
) -> list[Finding]:
    """Findings in Python source that the code runs or decodes, reported where it appears."""
    if depth >= MAX_EMBEDDING_DEPTH:
        return []
    try:
        module = parse_module(embedded.text)
    except cst.ParserSyntaxError:
        return []
    inner = _Source(path, embedded.text, module)
    state = _AuditState(ProjectBindings())
    state.project.add(path, module)
    start = positions[embedded.node].start
    return [
        Finding(
            path,
            start.line,
            start.column + 1,
            finding.code,
            f"in the code {embedded.how} (its line {finding.line}): {finding.message}",
            finding.subject,
        )
        for finding in _rule_findings(inner, config, registry_ops, state, depth + 1)
    ]


def _built_at(origin: Origin | None, state: _AuditState) -> str:
    """`, built at kinds.py:3 from "_".join(PARTS)`: where an evaluated value came from."""
    if origin is None:
        return ""
    code = excerpt(origin.module.module.code_for_node(origin.node))
    position = state.positions(origin.module.module).get(origin.node)
    where = origin.module.path + (f":{position.start.line}" if position else "")
    return f", built at {where} from `{code}`"


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
        return _Source(path, text, parse_module(text))
    except cst.ParserSyntaxError as error:
        message = f"cannot parse ({error.message}); the audit needs valid Python to check it"
        finding = Finding(path, error.raw_line, error.raw_column + 1, "LWA000", message, "syntax")
        return _Source(path, text, None, finding)
