"""The manual provider: requests go to files, answers come from files (anyone plays the model)."""

import json
import threading

from agents.providers.manual import Manual

REQUEST = {"messages": [{"role": "user", "content": "hello"}], "tools": []}
ANSWER = {"content": "on it", "tool_calls": [{"name": "read_file", "arguments": {"path": "x"}}]}


def test_requests_are_files_and_answers_are_read_back(tmp_path):
    manual = Manual("a person", tmp_path)
    answer = tmp_path / "responses" / "0003.json"
    answer.write_text("{not json")

    def answer_properly():
        while answer.exists():  # wait until the bad answer was set aside
            pass
        answer.write_text(json.dumps(ANSWER))

    thread = threading.Thread(target=answer_properly)
    thread.start()
    reply = manual.complete(REQUEST, 3, timeout=10)
    thread.join()
    assert json.loads((tmp_path / "requests" / "0003.json").read_text()) == REQUEST
    assert "## user\n\nhello" in (tmp_path / "requests" / "0003.md").read_text()
    assert (tmp_path / "responses" / "0003.rejected").read_text() == "{not json"
    call = reply["message"]["tool_calls"][0]
    assert call["id"] == "call_3_0" and json.loads(call["function"]["arguments"]) == {"path": "x"}
    assert reply["estimated"] and reply["usage"]["prompt_tokens"] > 0
