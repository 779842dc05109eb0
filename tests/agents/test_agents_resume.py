"""An interrupted run resumes from its SQLite checkpoint: after the endpoint went away, after a
crash in the middle of a step, after an answer arrived that the checkpoint did not keep, and at the
human approval asked for with --approve. (Real kills: test_agents_kill.py.)"""

import pytest
from agent_support import API_KEY, run
from fake_openai import FakeOpenAI, error, reply

from agents.client import ModelClient
from agents.run import resume
from agents.tools import ToolBox
from agents.transcript import read_events

WRITE = reply(("write_file", {"path": "notes/done.txt", "content": "done"}))
FINISH = reply(("finish", {"summary": "wrote the note"}))


def _resume(home, answer=None):  # the run calls the server its run.json names
    return resume("run", home, answer=answer, api_key=API_KEY, say=lambda text: None)


def _tools(result) -> list[str]:
    return [e["name"] for e in read_events(result.out) if e["type"] == "tool"]


def test_a_run_paused_by_an_outage_resumes_where_it_stopped(home):
    with FakeOpenAI([WRITE, error(502), error(502), error(502)]) as server:
        paused = run(home, server)
        assert paused.status == "paused" and "502" in paused.pending["error"]
        server.script.append(FINISH)  # the endpoint is back
        result = _resume(home)
        history = server.requests[-1]["body"]["messages"]
    assert result.status == "green"
    assert [m["role"] for m in history] == ["system", "user", "assistant", "tool"]
    assert history[-1]["content"].startswith("wrote notes/done.txt")
    assert _tools(result) == ["write_file", "finish"]  # nothing ran twice


def test_a_crashed_run_resumes_from_the_last_step(home, monkeypatch):
    original = ToolBox.call

    def crash_on_finish(self, name, arguments, *rest):
        if name == "finish":
            raise KeyboardInterrupt
        return original(self, name, arguments, *rest)

    monkeypatch.setattr(ToolBox, "call", crash_on_finish)
    with FakeOpenAI([WRITE, FINISH]) as server:
        with pytest.raises(KeyboardInterrupt):
            run(home, server)
        monkeypatch.setattr(ToolBox, "call", original)
        result = _resume(home)
    assert len(server.requests) == 2  # the reply to resume from was checkpointed
    assert result.status == "green"
    assert _tools(result) == ["write_file", "finish"]
    assert [e["type"] for e in read_events(result.out)].count("interrupted") == 1


def test_an_answer_the_checkpoint_lost_is_taken_from_the_transcript_not_asked_again(
    home, monkeypatch
):
    original, crashed = ModelClient.complete, []

    def crash_after_the_answer(self, request, usage, call):
        answer = original(self, request, usage, call)
        if call == 1 and not crashed:
            crashed.append(call)
            raise KeyboardInterrupt  # the answer is in the transcript, not in the checkpoint
        return answer

    monkeypatch.setattr(ModelClient, "complete", crash_after_the_answer)
    with FakeOpenAI([WRITE, FINISH]) as server:
        with pytest.raises(KeyboardInterrupt):
            run(home, server)
        result = _resume(home)
    events = read_events(result.out)
    assert result.status == "green" and len(server.requests) == 2
    assert [e["type"] for e in events].count("request") == 2 == events[-1]["usage"]["steps"]
    settled = next(e for e in events if e["type"] == "settled")
    assert (settled["requests"], settled["answer_reused"]) == (1, True)
    assert _tools(result) == ["write_file", "finish"]


def test_approval_is_asked_and_an_objection_goes_back_to_the_model(home):
    with FakeOpenAI([WRITE, FINISH, FINISH]) as server:
        paused = run(home, server, approve=True)
        assert paused.status == "paused" and "notes/done.txt" in paused.pending["diff"]
        again = _resume(home, answer="say why in the summary")
        objection = server.last_message()["content"]
        assert again.status == "paused"
        result = _resume(home, answer="yes")
    assert "A reviewer rejected the change: say why in the summary" in objection
    assert result.status == "green"
    answers = [e["answer"] for e in read_events(result.out) if e["type"] == "approval"]
    assert answers == ["say why in the summary", "yes"]
