"""The `replay:<transcript>` provider: answers model calls from a recorded transcript.

Call N is answered with the recorded answer to call N only when the workflow's request equals the
recorded request under `agents.normalize.normalize_request` (roles, contents, tool calls and tool
results, tool names; paths, addresses and credentials normalised). Anything else raises
`ReplayMismatch` naming the call, the first differing message and both versions of it.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from agents.errors import ReplayMismatch
from agents.normalize import normalize_request
from agents.transcript import read_events, transcript_file

SHOWN_DIFF_LINES = 40


class Replay:
    provider = "replay"

    def __init__(self, transcript: Path, paths: dict[str, str]):
        self.file = transcript_file(transcript)
        events = read_events(self.file)
        self.header = events[0]
        self.model = f"{self.header['provider']}: {self.header['model']}"
        self.paths = paths
        self.requests = {e["call"]: e["request"] for e in events if e["type"] == "request"}
        self.replies = {e["call"]: e for e in events if e["type"] == "response"}

    def complete(self, request: dict, call: int, timeout: float) -> dict:
        if call not in self.replies:
            raise ReplayMismatch(
                f"{self.file}: the transcript answers {len(self.replies)} model calls and the "
                f"workflow asks for call {call + 1}: the run went on where the recorded one "
                "stopped (re-record the transcript if the workflow changed on purpose)"
            )
        recorded = normalize_request(self.requests[call], self.header["paths"])
        current = normalize_request(request, self.paths)
        if recorded != current:
            raise ReplayMismatch(f"{self.file}: call {call + 1}: {difference(recorded, current)}")
        event = self.replies[call]
        return {
            "message": event["message"],
            "usage": event["usage"],
            "estimated": event["estimated"],
            "raw": event["raw"],
        }


def difference(recorded: dict, current: dict) -> str:
    """The first place two normalised requests differ, with a diff of that part."""
    if recorded["tools"] != current["tools"]:
        return _diff("the tools offered differ", recorded["tools"], current["tools"])
    old, new = recorded["messages"], current["messages"]
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return _diff(f"message {index} ({a['role']}) differs", a, b)
    return _diff(
        f"the recorded request has {len(old)} messages, this one {len(new)}",
        old[len(new) :],
        new[len(old) :],
    )


def _diff(what: str, recorded: object, current: object) -> str:
    lines = difflib.unified_diff(
        json.dumps(recorded, indent=1, ensure_ascii=False).splitlines(),
        json.dumps(current, indent=1, ensure_ascii=False).splitlines(),
        "recorded",
        "now",
        lineterm="",
    )
    shown = list(lines)[:SHOWN_DIFF_LINES]
    return f"{what}; re-record the transcript if the change is intended\n" + "\n".join(shown)
