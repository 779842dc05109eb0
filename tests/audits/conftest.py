"""Fixtures for the lowering-audit tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import FIXTURE_PROJECT


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A writable copy of the fixture project."""
    target = tmp_path / "audit_project"
    _copy(FIXTURE_PROJECT, target)
    return target


def _copy(source: Path, target: Path) -> None:
    for path in source.rglob("*"):
        if "__pycache__" in path.parts or path.is_dir():
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(path.read_bytes())
