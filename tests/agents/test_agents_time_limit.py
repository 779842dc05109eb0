"""A gate that runs out of time is a time limit, never a finding in the code: it names the test that
was running and the slowest finished ones, runs once more with the time the run has left, and the
report keeps the gates' time apart from the model's. The tests sleep past a gate limit of seconds.
"""

import pytest
from agent_support import TASKS, run
from fake_openai import FakeOpenAI, reply

from agents.gates import run_gates
from agents.prompts import RED, gates_message
from agents.tasks import GateSpec
from agents.transcript import read_events

HANGING = (TASKS / "files" / "hanging_tests.py").read_text()
LIMIT = 5.0  # seconds: room for pytest to start and the two quick tests to finish
RUNNING = "notes/test_hangs.py::test_hangs"
SLOWEST = ["notes/test_hangs.py::test_slower", "notes/test_hangs.py::test_quick"]
GATE = GateSpec("pytest", "slow-tests", ("notes/test_hangs.py",), timeout=LIMIT)


@pytest.fixture
def hanging(context):
    """The gate context, its sandbox holding the planted tests."""
    (context.sandbox.root / "notes").mkdir()
    (context.sandbox.root / "notes" / "test_hangs.py").write_text(HANGING)
    return context


def _tries(context) -> int:
    return (context.sandbox.root / "notes" / "tries.txt").read_text().count("tried")


def _never_a_finding(text: str) -> None:
    assert "FAILED" not in text and "GATE" not in text and RED not in text


def test_a_gate_out_of_time_names_the_running_and_slowest_tests_and_runs_once_more(hanging):
    (result,) = run_gates((GATE,), hanging, seconds_left=2 * LIMIT + 1)
    assert not result.passed and result.findings == []
    assert _tries(hanging) == 2  # the first try and the retry
    assert result.retried_after.seconds == LIMIT and result.time_limit.seconds <= LIMIT + 1
    for stop in (result.retried_after, result.time_limit):
        assert stop.running == RUNNING
        assert [test for test, _ in stop.slowest] == SLOWEST
    text = gates_message([result], after_finish=True)
    assert text.startswith("Gates: slow-tests STOPPED by its time limit\n")
    assert f"running when it stopped: {RUNNING} (for " in text
    assert f"slowest finished tests: {SLOWEST[0]} " in text  # its seconds, then the other
    assert "stopped by its time limit twice, before it could judge the change" in text
    assert "and once more after" in text and "the time the run had left" in text
    assert "change nothing in the code for it" in text
    _never_a_finding(text)


def test_a_gate_out_of_time_with_no_time_left_is_not_run_again(hanging):
    (result,) = run_gates((GATE,), hanging, seconds_left=1)
    assert result.time_limit.running == RUNNING and result.retried_after is None
    assert _tries(hanging) == 1
    text = gates_message([result], after_finish=False)
    assert "the run had no time left to try it once more" in text
    _never_a_finding(text)


def test_a_run_whose_gates_ran_out_of_time_reports_it_apart_from_the_model_s_time(home):
    with FakeOpenAI([reply(("run_checks", {}))]) as server:
        result = run(home, server, task="slow_gate", budget={"max_seconds": 2 * LIMIT + 2})
    events = read_events(result.out)
    (tool,) = [e for e in events if e["type"] == "tool"]
    assert tool["result"].startswith("Gates: slow-tests STOPPED by its time limit\n")
    assert RUNNING in tool["result"]
    _never_a_finding(tool["result"])
    report = events[-1]
    assert report["status"] == "stopped" and "time budget" in report["reason"]
    assert len(server.requests) == 1  # the retry spent the time the run had left
    usage = report["usage"]
    assert usage["gates"] == {"slow-tests": {"runs": 1, "failed": 1, "findings": 0, "stopped": 2}}
    assert usage["time"]["gates"] > 2 * LIMIT > usage["time"]["model"]
    markdown = (result.out / "report.md").read_text()
    assert "| slow-tests | STOPPED by its time limit (on its second try) | 0 |" in markdown
    assert "| model calls | gates | other tools | in all |" in markdown
