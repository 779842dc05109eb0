"""API keys and auth headers never reach a transcript, its Markdown or the report: not from the
run's own key, an error body echoing a header, nor a file the model reads."""

from pathlib import Path

from agent_support import API_KEY, run
from fake_openai import FakeOpenAI, error, reply

from agents.redact import MARK, Redactor

TOKEN = "ghp_0123456789abcdefTOKENVALUE"


def test_keys_and_auth_headers_are_redacted(home, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    leaked = tmp_path / "leak.txt"
    leaked.write_text(f"key {API_KEY}\ntoken {TOKEN}\n")
    task = tmp_path / "leak.yaml"
    task.write_text(
        "description: reads a file that holds secrets\nprompt: read it\n"
        "setup: [{path: notes/leak.txt, from: leak.txt}]\n"
    )
    echo = error(500, f"bad request; headers were Authorization: Bearer {API_KEY}")
    script = [
        echo,
        reply(("read_file", {"path": "notes/leak.txt"})),
        reply(("finish", {"summary": "x"})),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task=str(task))
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {API_KEY}"  # it was sent
    written = [p.read_text() for p in Path(result.out).iterdir()]
    assert len(written) == 4  # transcript.jsonl, transcript.md, report.md, patch.diff
    for text in written:
        assert API_KEY not in text and TOKEN not in text
    assert MARK in (result.out / "transcript.jsonl").read_text()


def test_shapes_of_credentials_are_redacted():
    redactor = Redactor()
    assert redactor.text("Authorization: Bearer abc.def-123456") == f"Authorization: {MARK}"
    assert redactor.text("curl https://user:hunter22@host/v1") == f"curl https://{MARK}@host/v1"
    assert redactor.text("OPENAI_API_KEY=sk-proj-aaaaaaaaaaaa") == f"OPENAI_API_KEY={MARK}"
    assert redactor.value({"headers": {"Authorization": "x", "Accept": "json"}}) == {
        "headers": {"Authorization": MARK, "Accept": "json"}
    }
    assert redactor.text("a keyboard and a token bucket") == "a keyboard and a token bucket"
