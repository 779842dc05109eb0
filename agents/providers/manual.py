"""The `manual` provider: anyone can play the model.

Each request goes to `<folder>/requests/NNNN.json` (the full request) and `NNNN.md` (the messages
new since the last answer, readable); the answer is read from `<folder>/responses/NNNN.json`, or
from stdin with `stdin=True`. An answer is an OpenAI chat completion, or the short form
`{"content": "...", "tool_calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]}`.
Token counts are estimated (about four characters a token) unless the answer gives `usage`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agents.errors import ModelError, ModelUnavailable
from agents.providers.reply import estimate_tokens, reply_from_completion

POLL_SECONDS = 0.2


class Manual:
    provider = "manual"

    def __init__(self, model: str, folder: Path, stdin: bool = False):
        self.model = model
        self.requests = folder / "requests"
        self.responses = folder / "responses"
        self.stdin = stdin
        self.requests.mkdir(parents=True, exist_ok=True)
        self.responses.mkdir(parents=True, exist_ok=True)

    def complete(self, request: dict, call: int, timeout: float) -> dict:
        name = f"{call:04d}"
        (self.requests / f"{name}.json").write_text(json.dumps(request, indent=1) + "\n")
        (self.requests / f"{name}.md").write_text(readable(request))
        answer_file = self.responses / f"{name}.json"
        if self.stdin:
            print(readable(request), file=sys.stderr)
            print(f"manual: answer request {name} as JSON on stdin", file=sys.stderr)
            answer = _read_stdin()
        else:
            print(f"manual: request {self.requests / name}.json; answer in {answer_file}")
            answer = _wait_for(answer_file, timeout)
        return self.reply(answer, request, call)

    def reply(self, answer: dict, request: dict, call: int) -> dict:
        if not isinstance(answer, dict):
            raise ModelError(f"manual answer {call:04d} must be a JSON object")
        if "choices" in answer:
            return reply_from_completion(answer, estimated="usage" not in answer)
        message = {"role": "assistant", "content": answer.get("content")}
        calls = answer.get("tool_calls") or []
        if calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{call}_{index}",
                    "type": "function",
                    "function": {
                        "name": item.get("name", ""),
                        "arguments": item["arguments"]
                        if isinstance(item.get("arguments"), str)
                        else json.dumps(item.get("arguments", {})),
                    },
                }
                for index, item in enumerate(calls)
            ]
        usage = answer.get("usage") or {
            "prompt_tokens": estimate_tokens(request["messages"]),
            "completion_tokens": estimate_tokens(answer),
        }
        completion = {"choices": [{"message": message}], "usage": usage}
        return reply_from_completion(completion, estimated="usage" not in answer)


def readable(request: dict) -> str:
    """The messages after the last assistant message (all of them at first), as Markdown."""
    messages = request["messages"]
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    parts = []
    for message in messages[last + 1 :]:
        label = message["role"] + (
            f" ({message['tool_call_id']})" if "tool_call_id" in message else ""
        )
        parts.append(f"## {label}\n\n{message.get('content') or ''}\n")
    return "\n".join(parts)


def _wait_for(path: Path, timeout: float) -> dict:
    """The JSON answer in `path`; a file that is not JSON is renamed `.rejected` and waited past."""
    deadline = time.monotonic() + timeout
    while True:
        if path.exists():
            time.sleep(POLL_SECONDS)  # let a writer that is not atomic finish
            try:
                return json.loads(path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as error:
                path.rename(path.with_suffix(".rejected"))
                print(f"manual: {path} is not JSON ({error}); renamed .rejected, write it again")
        if time.monotonic() >= deadline:
            raise ModelUnavailable(
                f"no answer in {path} within {timeout:.0f} s; write it, then resume the run"
            )
        time.sleep(POLL_SECONDS)


def _read_stdin() -> dict:
    text = ""
    for line in sys.stdin:
        text += line
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            continue
    raise ModelUnavailable("stdin closed before a complete JSON answer; resume the run")
