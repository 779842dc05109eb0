"""Fixtures for the agent-workflow tests: a private runs folder per test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("NTC_AGENT_HOME", str(tmp_path / "runs"))
    return tmp_path / "runs"
