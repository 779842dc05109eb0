"""Resume exactly once: a run killed with SIGKILL at each node (a model call in flight, a tool, the
gates, the approval) and resumed sends each later request once, numbers the calls on from where
it stopped, and counts every request the endpoint received against the budget; a command the
killed run left running is ended on resume, told to the model as interrupted and not run again;
and while the first process still drives a run, a second one is refused. The runs are real
processes of `python -m agents`, the endpoint the local fake server."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest
from agent_support import API_KEY, TASKS, alive
from fake_openai import FakeOpenAI, first, reply

from agents.run import PROJECT_ROOT
from agents.transcript import read_events

WRITE = reply(("write_file", {"path": "notes/done.txt", "content": "done"}))
HELPER = reply(("run", {"command": "python notes/kill_parent.py tool"}))
LINGER = reply(("run", {"command": "python notes/linger.py"}))
FINISH = reply(("finish", {"summary": "wrote the note"}))
QUESTION = b"Accept this change?"


@pytest.fixture
def kills(tmp_path, monkeypatch):
    """The folder of kill_parent.py's markers; `spare(name)` keeps that one from killing."""
    folder = tmp_path / "kills"
    folder.mkdir()
    monkeypatch.setenv("KILL_PARENT_DIR", str(folder))

    def spare(*names: str) -> None:
        for name in names:
            (folder / name).write_text("spared")

    return spare


def _agents(home, server, *args: str, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    env = {
        **os.environ,
        "OPENAI_API_KEY": API_KEY,
        "OPENAI_BASE_URL": server.base_url,
        "NTC_AGENT_HOME": str(home),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("MODEL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "agents", *args],
        cwd=PROJECT_ROOT,
        env=env,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _start(home, server, *options: str, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    task = str(TASKS / "killable.yaml")
    args = ["run", "--task", task, "--model", "fake-model", "--run-id", "run"]
    args += ["--transcripts", str(home / "transcripts"), *options]
    return _agents(home, server, *args, stdin=stdin)


def _resume(home, server, *options: str) -> subprocess.CompletedProcess:
    process = _agents(home, server, "resume", "run", *options)
    out, err = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err.decode())


def _killed(process: subprocess.Popen) -> None:
    process.communicate(timeout=300)
    assert process.returncode == -9  # SIGKILL, from kill_parent.py or the test


def _exactly_once(server, home) -> list[tuple[int, int]]:
    """What the endpoint received is what the transcript and the budget say, each call once (a
    call whose answer was lost is asked again as its next attempt); the (call, attempt) pairs."""
    events = read_events(home / "transcripts" / "run")
    requests = [e for e in events if e["type"] == "request"]
    report = events[-1]
    assert report["type"] == "report" and report["status"] == "green"
    assert len(server.requests) == len(requests) == report["usage"]["steps"]
    received = [sent["body"]["messages"] for sent in server.requests]
    assert received == [r["request"]["messages"] for r in requests]
    numbers = [(r["call"], r["attempt"]) for r in requests]
    assert numbers == sorted(set(numbers))
    calls = sorted({call for call, _ in numbers})
    assert calls == list(range(len(calls)))
    assert len({repr(messages) for messages in received}) == len(calls)
    return numbers


def test_killed_while_a_model_call_is_in_flight(home, kills):
    kills("tool", "gate")
    running = {}

    def kill_the_client():
        running["run"].kill()
        running["run"].wait()

    with FakeOpenAI([WRITE, first(kill_the_client, HELPER), HELPER, FINISH]) as server:
        running["run"] = _start(home, server)
        _killed(running["run"])
        resumed = _resume(home, server)
        assert resumed.returncode == 0, resumed.stderr
        numbers = _exactly_once(server, home)
    assert numbers == [(0, 1), (1, 1), (1, 2), (2, 1)]  # the lost answer is asked for again
    report = read_events(home / "transcripts" / "run")[-1]
    assert report["usage"]["failed_calls"] == 1


@pytest.mark.parametrize("node", ["tool", "gate"])
def test_killed_in_a_tool_or_the_gates(home, kills, node):
    kills(*({"tool", "gate"} - {node}))
    with FakeOpenAI([WRITE, HELPER, FINISH]) as server:
        _killed(_start(home, server))
        resumed = _resume(home, server)
        assert resumed.returncode == 0, resumed.stderr
        assert _exactly_once(server, home) == [(0, 1), (1, 1), (2, 1)]


def test_a_command_the_killed_run_left_running_is_ended_on_resume_and_not_run_again(
    home, kills, tmp_path
):
    kills("gate")
    folder = tmp_path / "kills"
    with FakeOpenAI([WRITE, LINGER, FINISH]) as server:
        _killed(_start(home, server))
        pids = [int(pid) for pid in (folder / "linger-pids").read_text().split()]
        assert all(alive(pid) for pid in pids)  # the command and its child outlived the run
        resumed = _resume(home, server)
        assert resumed.returncode == 0, resumed.stderr
        assert _exactly_once(server, home) == [(0, 1), (1, 1), (2, 1)]
        told = server.requests[2]["body"]["messages"][-1]["content"]
    assert not any(alive(pid) for pid in pids)  # no orphan is left
    assert (folder / "linger-runs").read_text() == "ran\n"  # the command ran once
    assert told.startswith("interrupted\nThe workflow was stopped")
    events = read_events(home / "transcripts" / "run")
    (ended,) = [e for e in events if e["type"] == "ended_command"]
    assert ended["argv"][-1] == "notes/linger.py"


def test_killed_while_awaiting_approval(home, kills):
    kills("tool", "gate")
    controller, terminal = pty.openpty()  # a terminal, so the run asks there and waits
    with FakeOpenAI([WRITE, HELPER, FINISH]) as server:
        process = _start(home, server, "--approve", stdin=terminal)
        os.close(terminal)
        try:
            _read_until(process, QUESTION)
            process.kill()
            _killed(process)
        finally:
            os.close(controller)
        resumed = _resume(home, server, "--answer", "yes")
        assert resumed.returncode == 0, resumed.stderr
        assert _exactly_once(server, home) == [(0, 1), (1, 1), (2, 1)]
    answers = [
        e["answer"] for e in read_events(home / "transcripts" / "run") if e["type"] == "approval"
    ]
    assert answers == ["yes"]


def test_a_second_driver_is_refused_while_the_first_one_runs(home, kills):
    kills("tool", "gate")
    beside = {}

    def resume_beside():
        beside["done"] = _resume(home, server)

    with FakeOpenAI([WRITE, first(resume_beside, HELPER), FINISH]) as server:
        process = _start(home, server)
        process.communicate(timeout=300)
        assert process.returncode == 0
        assert _exactly_once(server, home) == [(0, 1), (1, 1), (2, 1)]
    assert beside["done"].returncode == 2
    assert f"run run is still driven by process {process.pid}" in beside["done"].stderr


def _read_until(process: subprocess.Popen, text: bytes, timeout: float = 120) -> None:
    seen, deadline = b"", time.monotonic() + timeout
    while text not in seen:
        assert time.monotonic() < deadline, f"no {text!r} in {seen[-2000:]!r}"
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            chunk = os.read(process.stdout.fileno(), 4096)
            assert chunk, f"the run ended before asking: {seen[-2000:]!r}"
            seen += chunk
