"""Fixtures for the agent-workflow tests: a private runs folder per test, and a sandbox of HEAD
with the context the gates run in."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agents.gates import GateContext
from agents.run import PROJECT_ROOT
from agents.sandbox import Sandbox


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("NTC_AGENT_HOME", str(tmp_path / "runs"))
    return tmp_path / "runs"


@pytest.fixture
def context(tmp_path) -> GateContext:
    sandbox = Sandbox.create(PROJECT_ROOT, tmp_path / "sandbox", "HEAD", allow=())
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(sandbox.root), "PYTHONDONTWRITEBYTECODE": "1"}
    return GateContext(sandbox, sys.executable, env, tmp_path)
