"""Replay answers model calls from a transcript and fails loudly when the workflow asks anything
the transcript does not hold."""

import json

import pytest
from agent_support import run
from fake_openai import FakeOpenAI, reply

from agents.errors import ReplayMismatch
from agents.normalize import normalize_request
from agents.run import replay
from agents.transcript import FILE_NAME, read_events

SCRIPT = [
    reply(("list_files", {"path": "notes"}), ("search", {"pattern": "^# ntc"})),
    reply(("write_file", {"path": "notes/done.txt", "content": "done"})),
    reply(("finish", {"summary": "wrote the note"})),
]


@pytest.fixture
def recorded(home):
    with FakeOpenAI(SCRIPT) as server:
        result = run(home, server, run_id="recorded")
    assert result.status == "green"
    return result.out / FILE_NAME


def test_a_replay_runs_the_tools_again_and_ends_green(home, recorded):
    result = replay(recorded, home, say=lambda text: None)
    assert result.status == "green"
    events = read_events(result.out)
    assert events[0]["provider"] == "replay" and events[0]["replay_of"] == str(recorded)
    tools = [(e["name"], e["result"]) for e in events if e["type"] == "tool"]
    assert tools == [(e["name"], e["result"]) for e in read_events(recorded) if e["type"] == "tool"]


def test_a_changed_request_is_a_mismatch(home, recorded):
    events = read_events(recorded)
    request = next(e for e in events if e["type"] == "request" and e["call"] == 1)
    tool_message = request["request"]["messages"][-1]
    tool_message["content"] = "something the workflow never said"
    _write(recorded, events)
    with pytest.raises(ReplayMismatch, match=r"call 2: message \d+ \(tool\) differs"):
        replay(recorded, home, say=lambda text: None)


def test_asking_beyond_the_transcript_is_a_mismatch(home, recorded):
    events = read_events(recorded)
    last_call = max(e["call"] for e in events if e["type"] == "response")
    _write(recorded, [e for e in events if e.get("call") != last_call or e["type"] == "request"])
    with pytest.raises(
        ReplayMismatch, match="answers 2 model calls and the workflow asks for call 3"
    ):
        replay(recorded, home, say=lambda text: None)


def test_normalisation_drops_paths_addresses_and_keys():
    def request(root: str) -> dict:
        content = f"{root}/compiler/x.py:3: boom at 0x7f00deadbeef, Bearer sk-abcdefghijklmnop"
        return {
            "messages": [{"role": "tool", "tool_call_id": "c1", "content": content}],
            "tools": [{"type": "function", "function": {"name": "read_file", "description": root}}],
        }

    one = normalize_request(request("/tmp/a/sandbox"), {"<sandbox>": "/tmp/a/sandbox"})
    two = normalize_request(request("/home/b/sandbox"), {"<sandbox>": "/home/b/sandbox"})
    assert one == two
    assert (
        one["messages"][0]["content"] == "<sandbox>/compiler/x.py:3: boom at 0x?, Bearer <redacted>"
    )


def test_a_command_s_output_is_compared_by_its_status_line_only():
    def request(result: str) -> dict:
        call = {"id": "c1", "function": {"name": "run", "arguments": '{"command": "cc --version"}'}}
        return {
            "messages": [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": result},
            ]
        }

    here = normalize_request(request("exit 0\ncc (Debian 12.2.0) 12.2.0\n1 passed in 0.52s"), {})
    there = normalize_request(request("exit 0\ncc (GCC) 13.1.0\n1 passed in 2.10s"), {})
    failed = normalize_request(request("exit 1\ncc (GCC) 13.1.0"), {})
    assert here == there and here != failed
    assert here["messages"][1]["content"] == "exit 0"


def _write(path, events):
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
