"""Any OpenAI-compatible chat-completions endpoint, through the `openai` SDK.

The SDK's own retries are off (`max_retries=0`): the client wrapper retries with backoff so that
every attempt is counted against the budget and written to the transcript.
"""

from __future__ import annotations

import openai

from agents.errors import ModelError, TransientModelError
from agents.providers.reply import reply_from_completion

TRANSIENT_STATUS = frozenset({408, 409, 429})


class OpenAICompatible:
    provider = "openai-compatible"

    def __init__(self, model: str, base_url: str | None, api_key: str):
        self.model = model
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        self.base_url = str(self.client.base_url)

    def complete(self, request: dict, call: int, timeout: float) -> dict:
        try:
            completion = self.client.chat.completions.create(
                model=self.model,
                messages=request["messages"],
                tools=request["tools"],
                timeout=max(timeout, 1.0),
            )
        except openai.APIConnectionError as error:  # refused, reset, timed out
            raise TransientModelError(f"{self.base_url}: {error}") from None
        except openai.APIStatusError as error:
            text = f"{self.base_url} answered {error.status_code}: {error.message}"
            if error.status_code in TRANSIENT_STATUS or error.status_code >= 500:
                raise TransientModelError(text) from None
            raise ModelError(f"{text}; {_fix(error.status_code)}") from None
        return reply_from_completion(completion.model_dump(mode="json", exclude_unset=True))


def _fix(status: int) -> str:
    if status in (401, 403):
        return "check OPENAI_API_KEY for this endpoint"
    if status == 404:
        return "check OPENAI_BASE_URL (it ends in /v1 for most servers) and MODEL"
    return "check MODEL and that the endpoint supports tool calls in chat completions"
