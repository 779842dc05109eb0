"""The report counts the calls of each tool, by outcome, and the runs and failures of each gate
over all rounds, so that one run can be compared with another."""

from agent_support import run
from fake_openai import FakeOpenAI, reply

from agents.transcript import read_events


def test_the_report_counts_calls_per_tool_and_failures_per_gate(home):
    script = [
        reply(
            ("read_file", {"path": "README.md"}),
            ("run", {"command": "ntc passes"}),
            ("run", {"command": "curl http://example.com"}),
            ("no_such_tool", {}),
        ),
        reply(("run_checks", {})),
        reply(("finish", {"summary": "not yet"})),
        reply(("write_file", {"path": "notes/c.txt", "content": "c"})),
        reply(("finish", {"summary": "registered c"})),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="select")
    assert result.status == "green"
    usage = read_events(result.out)[-1]["usage"]
    assert {name: t["calls"] for name, t in usage["tools"].items()} == {
        "read_file": 1,
        "run": 2,
        "no_such_tool": 1,
        "run_checks": 1,
        "finish": 2,
        "write_file": 1,
    }
    assert (usage["tools"]["run"]["ok"], usage["tools"]["run"]["refused"]) == (1, 1)
    assert usage["tools"]["no_such_tool"]["malformed"] == 1
    assert usage["gates"] == {
        "backend-tests": {"runs": 3, "failed": 2, "findings": 2, "stopped": 0}
    }
    report = (result.out / "report.md").read_text()
    assert "| run | 2 | 1 | 0 | 1 | 0 |" in report
    assert "| backend-tests | 3 | 2 | 2 | 0 |" in report
    assert "| backend-tests | passed | 0 | " in report and "| 1 tests: 1 passed, 0 failed" in report
    markdown = (result.out / "transcript.md").read_text()
    assert "- tool calls: finish 2, no_such_tool 1, read_file 1, run 2" in markdown
    assert "gate failures: backend-tests 2" in markdown
