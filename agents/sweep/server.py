"""A local OpenAI-compatible chat-completions endpoint whose answers come from a Python function.

Real HTTP (the `openai` SDK talks to it as to any server): `answer(path, headers, body)` returns
`(status, body)` or `(status, body, delay_seconds)` for each POST; a thread per request, so many
runs can use one server at once. The scripted model (`agents/sweep/scripted.py`) and the tests'
scripted server are both answer functions.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Answer = Callable[[str, dict, dict], tuple]


def completion(message: dict, usage: tuple[int, int], model: str) -> dict:
    """A chat completion holding `message` (an assistant message) and its token counts."""
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        },
    }


def tool_call(call_id: str, name: str, arguments: object) -> dict:
    """One tool call of an assistant message; arguments given as a str go as they are."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


class LocalChatServer:
    def __init__(self, answer: Answer, host: str = "127.0.0.1"):
        serve = answer

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {key.lower(): value for key, value in self.headers.items()}
                try:
                    status, reply, *delay = serve(self.path, headers, body)
                except Exception as error:  # the answer function's bug, told to the client
                    status, reply, delay = 500, {"error": {"message": repr(error)}}, []
                time.sleep(delay[0] if delay else 0)
                data = json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client is gone (killed while it waited): nobody to answer

            def log_message(self, *args):  # keep the terminal for progress
                pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.root = f"http://{host}:{self.httpd.server_address[1]}"
        self.base_url = f"{self.root}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> LocalChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
