"""Budgets are enforced in the client wrapper: failed calls count, and a run that runs out stops
with a report."""

import pytest
from agent_support import run
from fake_openai import FakeOpenAI, error, reply, slow

from agents.transcript import read_events

LOOK = reply(("list_files", {"path": "."}))


@pytest.mark.parametrize(
    ("budget", "script", "calls", "reason"),
    [
        # Two 500s are retried with backoff and count as steps: the third attempt is the last.
        ({"max_steps": 3}, [error(500), error(503), LOOK, LOOK], 3, "step budget: 3 of 3"),
        # Each reply uses 100 + 20 tokens.
        ({"max_tokens": 200}, [LOOK, LOOK, LOOK], 2, "token budget: 240 of 200"),
        (
            {"max_dollars": 1.5, "price_input": 10_000, "price_output": 0},
            [LOOK, LOOK, LOOK],
            2,
            "dollar budget: $2.0000 of $1.50",
        ),
        ({"max_seconds": 0.5}, [slow(0.3, LOOK), slow(0.3, LOOK), LOOK], 2, "time budget"),
    ],
)
def test_a_budget_stops_the_run_with_a_report(home, budget, script, calls, reason):
    with FakeOpenAI(script) as server:
        result = run(home, server, budget=budget)
    assert len(server.requests) == calls
    assert result.status == "stopped"
    report = read_events(result.out)[-1]
    assert report["type"] == "report" and reason in report["reason"]
    assert reason in (result.out / "report.md").read_text()
    assert "STOPPED" in (result.out / "report.md").read_text()


def test_failed_calls_are_counted_and_retried(home):
    script = [
        error(500),
        error(429),
        reply(("write_file", {"path": "notes/done.txt", "content": "x"})),
    ]
    script.append(reply(("finish", {"summary": "done"})))
    with FakeOpenAI(script) as server:
        result = run(home, server)
    usage = read_events(result.out)[-1]["usage"]
    assert result.status == "green"
    assert (usage["steps"], usage["failed_calls"], usage["retries"]) == (4, 2, 2)
    errors = [e for e in read_events(result.out) if e["type"] == "model_error"]
    assert [e["transient"] for e in errors] == [True, True]
