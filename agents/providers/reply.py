"""The reply record every provider returns, built from an OpenAI chat completion (as a dict)."""

from __future__ import annotations

import json

from agents.errors import TransientModelError


def reply_from_completion(completion: dict, *, estimated: bool = False) -> dict:
    choices = completion.get("choices") or []
    if not choices or not isinstance(choices[0].get("message"), dict):
        raise TransientModelError(f"the answer holds no message: {json.dumps(completion)[:300]}")
    message = choices[0]["message"]
    assistant = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        assistant["tool_calls"] = [
            {
                "id": call.get("id") or f"call_{index}",
                "type": "function",
                "function": {
                    "name": call.get("function", {}).get("name", ""),
                    "arguments": _arguments_text(call.get("function", {}).get("arguments")),
                },
            }
            for index, call in enumerate(message["tool_calls"])
        ]
    usage = completion.get("usage") or {}
    return {
        "message": assistant,
        "usage": {
            "prompt_tokens": int(usage.get("prompt_tokens") or 0),
            "completion_tokens": int(usage.get("completion_tokens") or 0),
        },
        "estimated": estimated,
        "raw": completion,
    }


def _arguments_text(arguments: object) -> str:
    # Some servers (Ollama) send the arguments as an object, not as JSON text.
    if arguments is None:
        return ""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def estimate_tokens(value: object) -> int:
    """About four characters per token: what a provider without usage numbers is charged."""
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)
