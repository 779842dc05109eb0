"""A local OpenAI-compatible chat-completions server that answers from a script.

Real HTTP on 127.0.0.1 through the `openai` SDK (`agents/sweep/server.py`): every request is
recorded (headers and body), and each is answered by the next item of the script: `reply(...)`
(a completion with tool calls), `error(status)`, `slow(seconds, item)`, or `first(action, item)`
(`action()` runs before the answer goes out: it may kill the client waiting for it). A request
the script has no answer for gets a 400 that names it, which the run reports as a fatal model
error.
"""

from __future__ import annotations

from agents.sweep.server import LocalChatServer, completion, tool_call


def reply(*calls: tuple[str, object], content: str | None = None, usage=(100, 20)) -> dict:
    """A completion whose tool calls are (name, arguments); arguments given as a str go as is."""
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            tool_call(f"call_{index}_{name}", name, args)
            for index, (name, args) in enumerate(calls)
        ]
    return {"status": 200, "body": completion(message, usage, "fake-model")}


def error(status: int, message: str = "overloaded") -> dict:
    return {"status": status, "body": {"error": {"message": message, "type": "server_error"}}}


def slow(seconds: float, item: dict) -> dict:
    return {**item, "delay": seconds}


def first(action, item: dict) -> dict:
    return {**item, "before": action}


class FakeOpenAI(LocalChatServer):
    def __init__(self, script: list[dict]):
        self.script = list(script)
        self.requests: list[dict] = []  # {"headers": {lower-case name: value}, "body": {...}}
        super().__init__(self._answer)

    def _answer(self, path: str, headers: dict, body: dict) -> tuple[int, dict, float]:
        self.requests.append({"headers": headers, "body": body})
        item = self.script.pop(0) if self.script else None
        if item is None:
            item = error(400, f"the script has no answer for request {len(self.requests)}")
        if "before" in item:
            item["before"]()
        return item["status"], item["body"], item.get("delay", 0)

    def last_message(self, request: int = -1) -> dict:
        return self.requests[request]["body"]["messages"][-1]
