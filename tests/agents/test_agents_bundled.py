"""The bundled transcripts replay to green: every tool call and gate runs again for real in a fresh
sandbox of the recorded commit. `make agent TASK=add-backend` without a key is such a replay."""

import subprocess

import pytest

from agents.cli import main
from agents.run import PROJECT_ROOT, replay
from agents.transcript import read_events

BUNDLED = sorted((PROJECT_ROOT / "transcripts").glob("*/transcript.jsonl"))


def _recorded_commit_present(transcript) -> bool:
    commit = read_events(transcript)[0]["commit"]
    done = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=PROJECT_ROOT)
    return done.returncode == 0


def test_add_backend_and_another_task_are_bundled():
    if not (PROJECT_ROOT / "transcripts").is_dir():
        pytest.skip("no transcripts/ here: an agent run's sandbox leaves recorded runs out")
    tasks = {read_events(t)[0]["task"] for t in BUNDLED}
    assert "add-backend" in tasks and len(tasks) >= 2
    for transcript in BUNDLED:
        header, report = read_events(transcript)[0], read_events(transcript)[-1]
        assert header["provider"] in ("manual", "openai-compatible") and header["model"]
        assert report["type"] == "report" and report["status"] == "green"


@pytest.mark.parametrize("transcript", BUNDLED, ids=[t.parent.name for t in BUNDLED])
def test_bundled_transcript_replays_green(transcript, home, monkeypatch, capsys):
    if not _recorded_commit_present(transcript):
        pytest.skip("a shallow clone: the recorded commit is not here to replay on")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MODEL", raising=False)
    header = read_events(transcript)[0]
    if header["task"] == "add-backend":  # what `make agent TASK=add-backend` runs
        assert main(["run", "--task", "add-backend"]) == 0
        out = capsys.readouterr().out
        assert out.startswith("REPLAY: OPENAI_API_KEY and MODEL are not set")
        assert "REPLAY GREEN" in out
    else:
        assert replay(transcript, home, say=lambda text: None).status == "green"


def test_without_a_key_and_without_a_bundled_transcript_the_cli_says_what_to_do(
    home, monkeypatch, capsys
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MODEL", raising=False)
    assert main(["run", "--task", "add-backend", "--param", "BACKEND=opencl"]) == 2
    error = capsys.readouterr().err
    assert "no bundled transcript of add-backend with {'BACKEND': 'opencl'}" in error
    assert "OPENAI_API_KEY" in error and "MODEL=manual" in error
