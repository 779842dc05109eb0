"""The `run` tool: the task's and the skills' commands run in the sandbox, with a time limit the
budget shortens and a cap on what comes back; anything else is refused with the allowlist."""

import sys
from pathlib import Path

from agent_support import alive, run
from fake_openai import FakeOpenAI, reply

from agents.commands import Allowed, allowlist, listing, runnable
from agents.run import PROJECT_ROOT
from agents.sandbox import Sandbox
from agents.transcript import read_events

FINISH = reply(
    ("write_file", {"path": "notes/done.txt", "content": "done"}), ("finish", {"summary": "done"})
)


def _run(command: str) -> tuple[str, dict]:
    return ("run", {"command": command})


def _results(events: list[dict]) -> list[str]:
    return [e["result"] for e in events if e["type"] == "tool" and e["name"] == "run"]


def test_allowed_commands_run_and_the_rest_is_refused_with_the_allowlist(home):
    script = [
        reply(
            _run(".venv/bin/ntc compile compiler/suite/programs/vector_add.py --emit ssa"),
            _run("python -m pytest tests/agents/test_agents_manual.py"),
            _run("curl http://example.com"),
            _run("ntc compile ../../outside.py"),
            _run("pytest -q"),
            _run("ntc passes | grep canonicalize"),
            _run("make test lint"),
        ),
        FINISH,
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="commands")
    events = read_events(result.out)
    ssa, tests, curl, outside, bare, pipe, make = _results(events)
    assert ssa.startswith("exit 0\n") and "mem.load" in ssa
    assert tests.startswith("exit 0\n") and "1 passed" in tests
    assert curl.startswith("refused: 'curl http://example.com' is not a command of this task")
    for allowed in ("- ntc compile ...", "- make test\n", "- python notes/slow.py ...", "- pytest"):
        assert allowed in curl
    assert "leads outside the sandbox" in outside
    assert "give pytest the paths or node ids" in bare
    assert "'|' needs a shell" in pipe
    assert "not a command of this task" in make
    offered = {t["function"]["name"]: t for t in server.requests[0]["body"]["tools"]}
    assert "- ntc compile ..." in offered["run"]["function"]["description"]
    assert events[-1]["usage"]["refused_tool_calls"] == 5
    assert result.status == "green"


def test_a_command_past_its_time_ends_with_all_it_started_and_counts_against_the_budget(
    home, tmp_path, monkeypatch
):
    child = tmp_path / "child.pid"
    monkeypatch.setenv("SLOW_CHILD_PID", str(child))
    with FakeOpenAI([reply(_run("python notes/slow.py")), FINISH]) as server:
        result = run(home, server, task="commands", budget={"max_seconds": 4})
    events = read_events(result.out)
    (text,) = _results(events)
    status, explained, *last_lines = text.splitlines()
    assert (
        status == "stopped by its time limit"
        and "was ended with everything it started" in explained
    )
    assert last_lines == ["started"]  # the command's output before it was stopped
    assert not alive(int(child.read_text()))  # the child of the command was ended with it
    tool = next(e for e in events if e["type"] == "tool")
    # It ran until the time budget's remainder was spent, and not until the child's sleep ended.
    assert 3 < tool["seconds"] < 30
    report = events[-1]
    assert report["status"] == "stopped" and "time budget" in report["reason"]
    assert report["usage"]["seconds"] >= 4 and len(server.requests) == 1
    assert report["usage"]["time"]["tools"] >= 3  # the command's time, apart from the model's


def test_long_output_is_cut_in_the_middle(home):
    with FakeOpenAI([reply(_run("python notes/loud.py")), FINISH]) as server:
        result = run(home, server, task="commands")
    (text,) = _results(read_events(result.out))
    assert text.startswith("exit 0\nline 00000 of the output")
    assert text.endswith("line 04999 of the output")
    assert "characters cut ..." in text and len(text) < 17_000


def test_the_allowlist_comes_from_the_task_and_the_skills_and_runs_with_this_interpreter():
    allowed = allowlist(("cc --version",), PROJECT_ROOT)
    assert Allowed(("cc",)) in allowed and Allowed(("make", "test"), exact=True) in allowed
    assert Allowed(("ntc", "compile")) in allowed and Allowed(("python",)) not in allowed
    script = "skills/compiler-lowering-audit/scripts/audit_summary.py"
    assert Allowed(("python", script)) in allowed
    assert Allowed(("make", "test"), exact=True).allows(["make", "test"])
    assert not Allowed(("make", "test"), exact=True).allows(["make", "test", "agent"])
    bin_dir = Path(sys.executable).parent
    assert runnable(["make", "test"], bin_dir) == [
        "make",
        "-o",
        "install",
        f"PY={bin_dir}/python",
        "test",
    ]
    assert runnable(["pytest", "tests/x.py"], bin_dir) == [
        f"{bin_dir}/python",
        "-m",
        "pytest",
        "tests/x.py",
    ]
    assert runnable(["cc", "--version"], bin_dir) == ["cc", "--version"]


def test_a_scratch_task_runs_proof_programs_that_never_reach_the_patch(tmp_path):
    allowed = allowlist((), PROJECT_ROOT, scratch=True)
    scratch = Allowed(("python",), under="scratch/")
    assert scratch in allowed and scratch not in allowlist((), PROJECT_ROOT)
    assert scratch.allows(["python", "scratch/proof.py", "--n", "3"])
    for argv in (["python", "notes/proof.py"], ["python", "scratch/../setup.py"], ["python"]):
        assert not any(entry.allows(argv) for entry in allowed), argv
    assert "python scratch/FILE.py ..." in listing(allowed)
    sandbox = Sandbox.create(PROJECT_ROOT, tmp_path / "sandbox", "HEAD", allow=())
    sandbox.path("scratch/proof.py", write=True).parent.mkdir()
    sandbox.path("scratch/proof.py", write=True).write_text("print('proved')\n")
    sandbox.path("compiler/new_module.py", write=True).write_text("VALUE = 1\n")
    assert sandbox.changed_files() == ["compiler/new_module.py"]
