"""pytest plugin (entry point group `pytest11`): the lowering audit as test items.

In a project whose pyproject.toml has `[tool.lowering-audit]`, a pytest run over folders (`pytest`,
`pytest tests`) gains one item per audited file, `audit::<path>`, failing with that file's findings,
and `audit::baseline` for the baseline's own problems. Running selected test files leaves the audit
out unless `--lowering-audit` is given; `--no-lowering-audit` always leaves it out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audits.config import ConfigError, has_audit_table, load_config
from audits.discovery import discover_files, relative_path
from audits.engine import AuditReport, audit_project
from audits.findings import Finding

ITEM_PREFIX = "audit::"
REPORT_DOMAIN = "lowering-audit"  # not a suffix of the node ids, so pytest prints them as they are


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lowering-audit")
    group.addoption(
        "--lowering-audit",
        action="store_true",
        help="add the lowering audit's items even when running selected test files",
    )
    group.addoption(
        "--no-lowering-audit", action="store_true", help="leave the lowering audit's items out"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    pyproject = _pyproject(config)
    if _wanted(config) and has_audit_table(pyproject):
        items[:0] = _audit_items(session, pyproject)


class AuditFailed(Exception):
    def __init__(self, findings: list[Finding]) -> None:
        super().__init__(f"{len(findings)} lowering-audit finding(s)")
        self.findings = findings


class AuditRun:
    """One audit per pytest session, run when the first audit item runs."""

    def __init__(self, pyproject: Path) -> None:
        self.pyproject = pyproject
        self._report: AuditReport | None = None

    def findings_for(self, keys: set[str] | None) -> list[Finding]:
        """Findings for these paths; `None`: those for no audited file (the baseline's)."""
        if self._report is None:
            self._report = audit_project(load_config(self.pyproject))
        if keys is None:
            audited = set(self._report.files)
            return [f for f in self._report.findings if f.path not in audited]
        return [finding for finding in self._report.findings if finding.path in keys]


class AuditItem(pytest.Item):
    def __init__(self, *, run: AuditRun, keys: set[str] | None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.keys = keys

    def runtest(self) -> None:
        findings = self.run.findings_for(self.keys)
        if findings:
            raise AuditFailed(findings)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AuditFailed):
            return "\n".join(finding.as_text() for finding in excinfo.value.findings)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, REPORT_DOMAIN


class ConfigItem(pytest.Item):
    """Stands in for the audit when its configuration cannot be used."""

    def __init__(self, *, problem: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.problem = problem

    def runtest(self) -> None:
        raise ConfigError(self.problem)

    def repr_failure(self, excinfo, style=None):
        return f"lowering-audit cannot run: {self.problem}"

    def reportinfo(self):
        return self.path, None, REPORT_DOMAIN


def _audit_items(session: pytest.Session, pyproject: Path) -> list[pytest.Item]:
    try:
        config = load_config(pyproject)
        files = discover_files(config)
    except (ConfigError, OSError) as error:
        return [_config_item(session, pyproject, str(error))]
    if not files:
        problem = f"scanned no files under {', '.join(config.paths)}"
        return [_config_item(session, pyproject, problem)]
    run = AuditRun(pyproject)
    items = []
    for file in files:
        key = relative_path(file, config.root)
        items.append(_item(session, AuditItem, file, f"{ITEM_PREFIX}{key}", run=run, keys={key}))
    baseline = config.root / config.baseline
    items.append(_item(session, AuditItem, baseline, f"{ITEM_PREFIX}baseline", run=run, keys=None))
    return items


def _config_item(session: pytest.Session, pyproject: Path, problem: str) -> pytest.Item:
    return _item(session, ConfigItem, pyproject, f"{ITEM_PREFIX}config", problem=problem)


def _item(session, item_class, path: Path, name: str, **kwargs) -> pytest.Item:
    return item_class.from_parent(session, name=name, nodeid=name, path=path, **kwargs)


def _pyproject(config: pytest.Config) -> Path:
    """The pyproject.toml pytest configured itself from, else the one in its rootdir."""
    if config.inipath is not None and config.inipath.name == "pyproject.toml":
        return config.inipath
    return config.rootpath / "pyproject.toml"


def _wanted(config: pytest.Config) -> bool:
    if config.getoption("no_lowering_audit"):
        return False
    if config.getoption("lowering_audit"):
        return True
    invocation = config.invocation_params.dir
    return all("::" not in arg and (invocation / arg).is_dir() for arg in config.args)
