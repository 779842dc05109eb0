"""The client wrapper every model call goes through: budget, retries with backoff, transcript.

The budget is checked before every attempt and every attempt is counted (a step, its time, its
tokens, and failed ones as `failed_calls`), so a flaky endpoint cannot run past a limit. Transient
failures (connection errors, timeouts, 408/409/429/5xx) are retried with exponential backoff and
jitter; when the retries run out, `ModelUnavailable` leaves the run checkpointed and resumable.
A resumed run first settles the requests its checkpoint does not count (`agents/ledger.py`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from agents.budget import Budget, count_time
from agents.errors import BudgetExhausted, ModelError, ModelUnavailable, TransientModelError
from agents.ledger import Ledger
from agents.transcript import TranscriptWriter


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    base_seconds: float = 1.0
    cap_seconds: float = 30.0

    def delay(self, attempt: int) -> float:
        """Full jitter: a random wait up to base * 2^(attempt - 1), capped."""
        return random.uniform(0, min(self.cap_seconds, self.base_seconds * 2 ** (attempt - 1)))


class ModelClient:
    def __init__(
        self,
        provider,
        budget: Budget,
        transcript: TranscriptWriter,
        retry: RetryPolicy,
        ledger: Ledger | None = None,
    ):
        self.provider = provider
        self.budget = budget
        self.transcript = transcript
        self.retry = retry
        self.ledger = ledger or Ledger([])

    def complete(self, request: dict, usage: dict, call: int) -> dict:
        """The reply to `request` (model call number `call`); `usage` is updated in place."""
        settled = self.ledger.settle(usage, call, request, self.transcript)
        if settled.reply is not None:
            self._count(settled.reply, usage, settled.seconds)
            return settled.reply
        last = settled.attempts + self.retry.attempts
        for attempt in range(settled.attempts + 1, last + 1):
            reason = self.budget.exhausted(usage)
            if reason:
                raise BudgetExhausted(reason)
            usage["steps"] += 1
            self.transcript.event("request", call=call, attempt=attempt, request=request)
            start = time.monotonic()
            try:
                reply = self.provider.complete(request, call, self.budget.remaining_seconds(usage))
            except ModelError as error:
                usage["failed_calls"] += 1
                count_time(usage, "model", time.monotonic() - start)
                transient = isinstance(error, TransientModelError)
                self.transcript.event(
                    "model_error", call=call, attempt=attempt, error=str(error), transient=transient
                )
                if not transient:
                    raise
                if attempt == last:
                    raise ModelUnavailable(
                        f"{self.provider.provider} {self.provider.model!r} failed "
                        f"{self.retry.attempts} times, last: {error}"
                    ) from None
                self._back_off(attempt, usage)
                continue
            seconds = time.monotonic() - start
            self._count(reply, usage, seconds)
            self.transcript.event(
                "response", call=call, attempt=attempt, seconds=round(seconds, 3), **reply
            )
            return reply
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _back_off(self, attempt: int, usage: dict) -> None:
        delay = min(self.retry.delay(attempt), self.budget.remaining_seconds(usage))
        time.sleep(delay)
        count_time(usage, "model", delay)
        usage["retries"] += 1

    def _count(self, reply: dict, usage: dict, seconds: float) -> None:
        prompt, completion = reply["usage"]["prompt_tokens"], reply["usage"]["completion_tokens"]
        usage["prompt_tokens"] += prompt
        usage["completion_tokens"] += completion
        usage["dollars"] += self.budget.prices.dollars(prompt, completion)
        count_time(usage, "model", seconds)
        usage["tokens_estimated"] = usage["tokens_estimated"] or reply["estimated"]
