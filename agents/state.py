"""The graph's state: plain JSON-like values only, so the SQLite checkpoint holds all of it."""

from __future__ import annotations

from typing import TypedDict


class AgentState(TypedDict, total=False):
    messages: list[dict]  # the chat so far, in OpenAI's format
    usage: dict  # see agents.budget.new_usage
    calls: int  # model replies received (numbers the calls, also in a replay)
    pending: list[dict]  # tool calls of the last reply not run yet, in order
    summary: str | None  # a finish call's summary, until its gates have run
    gates: list[dict]  # the latest gate results (GateResult.to_dict)
    rounds: int  # how many times the gates ran
    outcome: str  # "" while working; "green" once the gates pass; "stopped" by a budget
    reason: str  # why the run stopped
    outage: str  # the model error that paused the run, until it is resumed
    verdict: str  # "approved", or the reviewer's objection
