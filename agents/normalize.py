"""What a replay compares: a request reduced to what the workflow decides.

Kept: every message's role, content, tool calls (id, name, arguments parsed as JSON) and
`tool_call_id`, and the names of the tools offered, in order. Dropped: the model name, sampling
options, tool descriptions, and what a `run` command printed after its status line (times,
compiler versions and machine details differ from run to run; the exit status is the workflow's).
Replaced: the run's absolute paths (sandbox, run folder, the user's checkout, the Python
interpreter, the home folder) by placeholders, memory addresses by `0x?`, and credentials as the
transcript redacts them, so a run recorded on one machine replays on another.
"""

from __future__ import annotations

import json
import re

from agents.redact import Redactor

ADDRESS = re.compile(r"\b0x[0-9a-f]{6,}\b")
COMMAND_TOOL = "run"  # its results are compared by their status line only


def normalize_request(request: dict, paths: dict[str, str]) -> dict:
    """`paths`: placeholder -> absolute path, as the run header records them."""
    redactor = Redactor()
    replacements = sorted(
        ((path, name) for name, path in paths.items() if path), key=lambda p: -len(p[0])
    )

    def text(value: str | None) -> str | None:
        if value is None:
            return None
        for path, name in replacements:
            value = value.replace(path, name)
        return ADDRESS.sub("0x?", redactor.text(value))

    commands = {
        call.get("id")
        for message in request["messages"]
        for call in message.get("tool_calls") or []
        if call["function"]["name"] == COMMAND_TOOL
    }
    messages = []
    for message in request["messages"]:
        content = text(_content(message.get("content")))
        if message.get("tool_call_id") in commands and content is not None:
            content = content.split("\n", 1)[0]  # the status line
        kept = {"role": message["role"], "content": content}
        if message.get("tool_calls"):
            kept["tool_calls"] = [
                {
                    "id": call.get("id"),
                    "name": call["function"]["name"],
                    "arguments": _arguments(text(call["function"].get("arguments") or "")),
                }
                for call in message["tool_calls"]
            ]
        if "tool_call_id" in message:
            kept["tool_call_id"] = message["tool_call_id"]
        messages.append(kept)
    tools = [tool["function"]["name"] for tool in request.get("tools", [])]
    return {"messages": messages, "tools": tools}


def _content(content: object) -> str | None:
    if content is None or isinstance(content, str):
        return content
    return json.dumps(content, sort_keys=True)  # a list of content parts


def _arguments(arguments: str) -> object:
    try:
        return json.loads(arguments)
    except json.JSONDecodeError:
        return arguments  # malformed arguments are compared as the text they were
