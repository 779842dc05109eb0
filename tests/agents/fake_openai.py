"""A local OpenAI-compatible chat-completions server that answers from a script.

Real HTTP on 127.0.0.1 through the `openai` SDK: every request is recorded (headers and body),
and each is answered by the next item of the script: `reply(...)` (a completion with tool calls),
`error(status)`, or `slow(seconds, item)`. A request the script has no answer for gets a 400 that
names it, which the run reports as a fatal model error.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def reply(*calls: tuple[str, object], content: str | None = None, usage=(100, 20)) -> dict:
    """A completion whose tool calls are (name, arguments); arguments given as a str go as is."""
    tool_calls = [
        {
            "id": f"call_{index}_{name}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for index, (name, args) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "status": 200,
        "body": {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        },
    }


def error(status: int, message: str = "overloaded") -> dict:
    return {"status": status, "body": {"error": {"message": message, "type": "server_error"}}}


def slow(seconds: float, item: dict) -> dict:
    return {**item, "delay": seconds}


class FakeOpenAI:
    def __init__(self, script: list[dict]):
        self.script = list(script)
        self.requests: list[dict] = []  # {"headers": {lower-case name: value}, "body": {...}}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {key.lower(): value for key, value in self.headers.items()}
                server.requests.append({"headers": headers, "body": body})
                item = server.script.pop(0) if server.script else None
                if item is None:
                    item = error(
                        400, f"the script has no answer for request {len(server.requests)}"
                    )
                time.sleep(item.get("delay", 0))
                data = json.dumps(item["body"]).encode()
                self.send_response(item["status"])
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # keep test output quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def last_message(self, request: int = -1) -> dict:
        return self.requests[request]["body"]["messages"][-1]
