"""The sandbox: paths that lead outside (.., absolute, symlinks) and protected paths are refused;
malformed tool calls get an error back and are counted."""

import os

import pytest
from agent_support import run
from fake_openai import FakeOpenAI, reply

from agents.run import PROJECT_ROOT
from agents.sandbox import Refused, Sandbox
from agents.transcript import read_events


@pytest.fixture
def sandbox(tmp_path):
    return Sandbox.create(PROJECT_ROOT, tmp_path / "sandbox", "HEAD", allow=())


def test_escapes_are_refused(sandbox, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    (sandbox.root / "compiler" / "link").symlink_to(tmp_path)
    (sandbox.root / "notes.txt").symlink_to(outside)
    for path in [
        "../outside.txt",
        str(outside),
        "compiler/link/outside.txt",
        "notes.txt",
        ".git/config",
    ]:
        with pytest.raises(Refused):
            sandbox.path(path)
    assert sandbox.path("compiler/../README.md") == sandbox.root / "README.md"


def test_protected_paths_are_refused_for_writes_only(sandbox):
    for path in ["tests/test_cli.py", "audits/baseline.toml", "pyproject.toml", "./tests/new.py"]:
        assert sandbox.path(path).is_relative_to(sandbox.root)
        with pytest.raises(Refused, match="protected"):
            sandbox.path(path, write=True)
    (sandbox.root / "compiler" / "tests_link").symlink_to(sandbox.root / "tests")
    with pytest.raises(Refused, match="protected"):
        sandbox.path("compiler/tests_link/new.py", write=True)
    allowed = Sandbox.open(sandbox.root, allow=("tests/",))
    assert allowed.path("tests/new.py", write=True) == sandbox.root / "tests" / "new.py"


def test_through_the_graph_refusals_and_malformed_calls_reach_the_model(home, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    script = [
        reply(
            ("write_file", {"path": "../../outside.txt", "content": "overwritten"}),
            ("write_file", {"path": os.fspath(outside), "content": "overwritten"}),
            ("replace_in_file", {"path": "tests/test_cli.py", "old": "def", "new": "xdef"}),
            ("read_file", {"path": "../../../../../../etc/hostname"}),
            ("no_such_tool", {}),
            ("read_file", "{not json"),
            ("write_file", {"path": "notes/done.txt"}),
        ),
        reply(
            ("write_file", {"path": "notes/done.txt", "content": "ok"}),
            ("finish", {"summary": "ok"}),
        ),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server)
    results = [m["content"] for m in server.requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert [text.split(":")[0] for text in results] == ["refused"] * 4 + ["error"] * 3
    assert "protected" in results[2] and "no tool 'no_such_tool'" in results[4]
    assert "not JSON" in results[5] and "missing ['content']" in results[6]
    usage = read_events(result.out)[-1]["usage"]
    assert (usage["refused_tool_calls"], usage["malformed_tool_calls"]) == (4, 3)
    assert outside.read_text() == "keep me"
    assert "tests/test_cli.py" not in (result.out / "patch.diff").read_text()
    assert result.status == "green"
