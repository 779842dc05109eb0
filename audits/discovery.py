"""Which Python files an audit reads."""

from __future__ import annotations

from pathlib import Path

from audits.config import AuditConfig

_SKIPPED_FOLDERS = {"__pycache__", "build", "dist", "node_modules", "site-packages"}


def discover_files(config: AuditConfig, paths: list[Path] | None = None) -> list[Path]:
    """Absolute paths of the .py files under `paths` (default: the configured ones), sorted."""
    roots = paths if paths else [config.root / path for path in config.paths]
    found: set[Path] = set()
    for root in roots:
        root = root.resolve()
        candidates = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for candidate in candidates:
            if candidate.suffix != ".py" or _in_skipped_folder(candidate, root):
                continue
            if not config.is_excluded(relative_path(candidate, config.root)):
                found.add(candidate)
    return sorted(found)


def relative_path(path: Path, root: Path) -> str:
    """The posix path as findings print it: relative to the root when inside it."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _in_skipped_folder(path: Path, root: Path) -> bool:
    parts = path.relative_to(root).parts[:-1] if path != root else ()
    return any(
        part in _SKIPPED_FOLDERS or part.startswith(".") or part.endswith(".egg-info")
        for part in parts
    )
