"""The baseline: findings a project has accepted, each with a reason. It can only shrink.

    [[accepted]]
    code = "LWA002"
    path = "compiler/frontend/primitives.py"
    subject = "'softmax'"
    reason = "ntl.softmax is a DSL primitive; the frontend decomposes it into generic ops"

An entry accepts every finding with its code, path and subject (line numbers may move). An entry
without a reason, or one that accepts nothing any more, is itself a finding: remove it.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from audits.config import ConfigError
from audits.findings import Finding

_KEYS = {"code", "path", "subject", "reason"}


@dataclass(frozen=True)
class BaselineEntry:
    code: str
    path: str
    subject: str
    reason: str
    line: int  # of the entry's [[accepted]] header, for the messages

    def accepts(self, finding: Finding) -> bool:
        return (finding.code, finding.path, finding.subject) == (self.code, self.path, self.subject)


def load_baseline(path: Path) -> list[BaselineEntry]:
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"cannot read baseline {path}: {error}") from error
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[accepted]]"]
    entries = table.get("accepted", [])
    if set(table) - {"accepted"} or not isinstance(entries, list) or len(entries) != len(lines):
        raise ConfigError(f"baseline {path} must hold only [[accepted]] tables")
    return [_entry(path, raw, line) for raw, line in zip(entries, lines, strict=True)]


def apply_baseline(
    findings: list[Finding],
    entries: list[BaselineEntry],
    baseline_path: str,
    scanned: set[str] | None = None,
) -> tuple[list[Finding], int]:
    """(findings left, with the baseline's own problems; how many findings it accepted).

    `scanned`: the files a partial run read; entries for other files are left alone then.
    """
    if scanned is not None:
        entries = [entry for entry in entries if entry.path in scanned]
    kept, problems, used = [], [], set()
    usable = [entry for entry in entries if entry.reason and entry.code != "LWA000"]
    for finding in findings:
        entry = next((entry for entry in usable if entry.accepts(finding)), None)
        if entry is None:
            kept.append(finding)
        else:
            used.add(entry)
    for entry in entries:
        where = f"{entry.code} {entry.path} {entry.subject}"
        if entry.code == "LWA000":
            problems.append(_problem(baseline_path, entry, f"LWA000 cannot be accepted: {where}"))
        elif not entry.reason:
            problems.append(
                _problem(baseline_path, entry, f"baseline entry needs a reason: {where}")
            )
        elif entry not in used:
            message = f"stale baseline entry matches no finding: remove it ({where})"
            problems.append(_problem(baseline_path, entry, message))
    return kept + problems, len(findings) - len(kept)


def render_baseline(findings: list[Finding]) -> str:
    """Entries that would accept `findings`, with empty reasons for a person to fill in."""
    blocks, seen = [], set()
    for finding in findings:
        key = (finding.code, finding.path, finding.subject)
        if finding.code == "LWA000" or key in seen:
            continue
        seen.add(key)
        blocks.append(
            "[[accepted]]\n"
            f"code = {_quote(finding.code)}\n"
            f"path = {_quote(finding.path)}\n"
            f"subject = {_quote(finding.subject)}\n"
            'reason = ""\n'
        )
    return "\n".join(blocks)


def _entry(path: Path, raw: dict, line: int) -> BaselineEntry:
    unknown = set(raw) - _KEYS
    if unknown or not all(isinstance(raw.get(key, ""), str) for key in _KEYS):
        raise ConfigError(f"{path}:{line}: an entry holds strings {sorted(_KEYS)} only")
    if not raw.get("code") or not raw.get("path"):
        raise ConfigError(f"{path}:{line}: an entry needs `code` and `path`")
    return BaselineEntry(
        code=raw["code"],
        path=raw["path"],
        subject=raw.get("subject", ""),
        reason=raw.get("reason", "").strip(),
        line=line,
    )


def _problem(baseline_path: str, entry: BaselineEntry, message: str) -> Finding:
    return Finding(baseline_path, entry.line, 1, "LWA000", message, "baseline")


def _quote(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string
