"""The sandbox: one commit with no history before it and no earlier runs in its tree; paths that
lead outside (.., absolute, symlinks) and protected paths are refused; malformed tool calls get an
error back and are counted."""

import os
import subprocess

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
        ".venv/bin/python",  # the link to the workflow's environment
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


def test_writable_globs_admit_new_files_only(sandbox):
    """A task's `writable` globs: a model may add its own test files there, never change one the
    commit has, nor write elsewhere under a protected prefix."""
    writable = Sandbox.open(sandbox.root, allow=(), new_files=("tests/ir/roundtrip*.mlir",))
    new = writable.path("tests/ir/roundtrip_cbrt.mlir", write=True)
    new.write_text("// a case\n")
    with pytest.raises(Refused, match=r"add new files \(not change existing ones\) at: tests/ir"):
        writable.path("tests/ir/roundtrip.mlir", write=True)  # the commit has it
    for elsewhere in ("tests/ir/test_new.py", "tests/ir/deeper/roundtrip_x.mlir"):
        with pytest.raises(Refused, match="protected"):
            writable.path(elsewhere, write=True)
    assert writable.added_files() == ["tests/ir/roundtrip_cbrt.mlir"]


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


def _git(folder, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True).stdout


def test_a_run_s_sandbox_holds_no_earlier_run_in_its_tree_or_its_history(home):
    assert (PROJECT_ROOT / "transcripts").is_dir()  # the checkout has recorded runs
    script = [
        reply(("list_files", {"path": "."}), ("list_files", {"path": "transcripts"})),
        reply(
            ("write_file", {"path": "notes/done.txt", "content": "ok"}),
            ("finish", {"summary": "ok"}),
        ),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server)
    top, transcripts = [e["result"] for e in read_events(result.out) if e["type"] == "tool"][:2]
    assert "agents/" in top.split() and "transcripts/" not in top.split()
    assert transcripts == "error: transcripts is not a folder"
    sandbox = home / "run" / "sandbox"
    base = _git(PROJECT_ROOT, "rev-parse", "HEAD").strip()
    subjects = _git(sandbox, "log", "--format=%s").splitlines()
    assert subjects[:2] == ["quick: run", "task quick: setup"] and len(subjects) == 3
    assert _git(sandbox, "rev-parse", "HEAD~2").strip() == base  # and nothing before it
    older = _git(PROJECT_ROOT, "rev-parse", "HEAD~1").strip()
    assert subprocess.run(["git", "cat-file", "-e", older], cwd=sandbox).returncode != 0
    patch = (result.out / "patch.diff").read_text()
    assert "transcripts/" not in patch and ".venv" not in patch
    assert (sandbox / ".venv" / "bin" / "python").exists()  # the skills' commands run as written
    assert _git(sandbox, "status", "--porcelain") == ""


def test_a_task_may_keep_the_earlier_runs(home):
    script = [
        reply(("list_files", {"path": "."})),
        reply(
            ("write_file", {"path": "notes/done.txt", "content": "ok"}),
            ("finish", {"summary": "ok"}),
        ),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="history")
    top = next(e["result"] for e in read_events(result.out) if e["type"] == "tool")
    assert "transcripts/" in top.split()
