"""A run's transcript: one JSON object per line, appended as things happen, redacted on the way.

Event types: `run` (the header: task, params, provider, model, base commit, paths), `resume`,
`request` and `response` (every model call, with its call number and attempt), `model_error`,
`settled` (requests a resumed run found past its checkpoint, `agents/ledger.py`), `tool` (name,
arguments, result), `gates` (every gate's result, findings or time limit), `approval`,
`interrupted`, `ended_command` (what a resume ended of a command the killed workflow left) and
`report`. `agents/render.py` turns the file into Markdown.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from agents.errors import AgentError
from agents.redact import Redactor

FILE_NAME = "transcript.jsonl"


class TranscriptWriter:
    def __init__(self, directory: Path, redactor: Redactor):
        self.directory = directory
        self.path = directory / FILE_NAME
        self.redactor = redactor
        directory.mkdir(parents=True, exist_ok=True)

    def event(self, kind: str, **fields: object) -> dict:
        record = self.redactor.value({"type": kind, "time": round(time.time(), 3), **fields})
        with self.path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")
        return record


def transcript_file(path: Path) -> Path:
    """The JSONL file of a transcript given as the file or its folder."""
    path = Path(path)
    file = path / FILE_NAME if path.is_dir() else path
    if not file.is_file():
        raise AgentError(
            f"{path}: no transcript here; give a transcripts/<run-id>/ folder or its {FILE_NAME}"
        )
    return file


def read_events(path: Path) -> list[dict]:
    file = transcript_file(path)
    events = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise AgentError(
                f"{file}:{number}: not JSON ({error.msg}); the file is damaged"
            ) from None
    if not events or events[0].get("type") != "run":
        raise AgentError(f"{file}:1: a transcript starts with a `run` event")
    return events
