"""Requests the endpoint received that a resumed run's checkpoint does not count.

The client writes a `request` event before every attempt and a `response` or `model_error` after
it, but the usage that counts attempts is checkpointed only when the model node returns. A run
killed in between (an answer in flight, or received and not checkpointed yet) leaves request
events past the checkpoint's count of steps, all of the call the resumed node makes again.
`Ledger.settle` counts them into the usage before that call's first new attempt: each as a step;
one that failed or never got its answer as a failed call; the last one, if the transcript holds
its answer and it asked what the call asks now, answers the call, so it is not asked twice. New
attempts are numbered after the recorded ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agents.transcript import TranscriptWriter

REPLY_FIELDS = ("message", "usage", "estimated", "raw")


@dataclass(frozen=True)
class Settled:
    reply: dict | None  # the recorded answer to this very request, if the endpoint gave one
    seconds: float  # what that answer took
    attempts: int  # attempts of this call the transcript holds already


class Ledger:
    def __init__(self, events: list[dict]):
        self.requests = [e for e in events if e["type"] == "request"]
        self.outcomes = {
            (e["call"], e["attempt"]): e for e in events if e["type"] in ("response", "model_error")
        }
        self.open = True  # settles once: later requests are this process's own

    def settle(
        self, usage: dict, call: int, request: dict, transcript: TranscriptWriter
    ) -> Settled:
        """Count the requests past the checkpoint into `usage` (in place)."""
        if not self.open:
            return Settled(None, 0.0, 0)
        self.open = False
        unsettled = self.requests[usage["steps"] :]
        asked = json.loads(json.dumps(transcript.redactor.value(request)))
        reply, seconds, failed = None, 0.0, 0
        for index, event in enumerate(unsettled):
            usage["steps"] += 1
            outcome = self.outcomes.get((event["call"], event["attempt"]))
            last = index == len(unsettled) - 1
            if last and outcome and outcome["type"] == "response" and event["request"] == asked:
                reply = {key: outcome[key] for key in REPLY_FIELDS}
                seconds = outcome["seconds"]
            else:
                failed += 1
        usage["failed_calls"] += failed
        if unsettled:
            transcript.event(
                "settled",
                call=call,
                requests=len(unsettled),
                failed_or_lost=failed,
                answer_reused=reply is not None,
            )
        attempts = max((e["attempt"] for e in self.requests if e["call"] == call), default=0)
        return Settled(reply, seconds, attempts)
