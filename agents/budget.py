"""Limits on steps, tokens, dollars and wall time, and the usage counted against them.

Usage is a plain dict in the graph's state, so every checkpoint holds it and a resumed run goes on
counting. The client wrapper (`agents/client.py`) checks the budget before every attempt and adds
every attempt to the usage, failed ones included; tools and gates add the time they take, and the
calls of each tool and the runs, failures and time limits of each gate are tallied for the report.
The time is split too: the model's (its calls and the waits between retries), the gates' and the
other tools', so a report shows where a run's time went.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens; 0 when unknown (the report then says so)."""

    input_per_million: float = 0.0
    output_per_million: float = 0.0

    def dollars(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1e6


@dataclass(frozen=True)
class Budget:
    max_steps: int = 60  # model call attempts, failed ones included
    max_tokens: int = 2_000_000  # prompt + completion
    max_dollars: float = 10.0
    max_seconds: float = 3600.0  # time spent in the workflow, not waiting for a human
    prices: Prices = field(default_factory=Prices)

    @classmethod
    def from_dict(cls, data: dict) -> Budget:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known - {"price_input", "price_output"}
        if unknown:
            raise ValueError(f"unknown budget keys {sorted(unknown)}; known: {sorted(known)}")
        limits = {k: v for k, v in data.items() if k in known and k != "prices"}
        prices = Prices(float(data.get("price_input", 0)), float(data.get("price_output", 0)))
        return cls(**limits, prices=prices)

    def to_dict(self) -> dict:
        data = {k: v for k, v in asdict(self).items() if k != "prices"}
        data["price_input"] = self.prices.input_per_million
        data["price_output"] = self.prices.output_per_million
        return data

    def exhausted(self, usage: dict) -> str | None:
        """Why no further model call may start, or None."""
        tokens = usage["prompt_tokens"] + usage["completion_tokens"]
        if usage["steps"] >= self.max_steps:
            return f"step budget: {usage['steps']} of {self.max_steps} model calls used"
        if tokens >= self.max_tokens:
            return f"token budget: {tokens} of {self.max_tokens} tokens used"
        if usage["dollars"] >= self.max_dollars:
            return f"dollar budget: ${usage['dollars']:.4f} of ${self.max_dollars:.2f} spent"
        if usage["seconds"] >= self.max_seconds:
            return f"time budget: {usage['seconds']:.1f} s of {self.max_seconds:.0f} s used"
        return None

    def remaining_seconds(self, usage: dict) -> float:
        return max(self.max_seconds - usage["seconds"], 0.0)


NO_TIME = {"model": 0.0, "gates": 0.0, "tools": 0.0}


def new_usage() -> dict:
    return {
        "steps": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "dollars": 0.0,
        "seconds": 0.0,
        "failed_calls": 0,
        "retries": 0,
        "malformed_tool_calls": 0,
        "refused_tool_calls": 0,
        "tokens_estimated": False,
        "tools": {},  # name -> {"calls", "ok", "error", "refused", "malformed", "seconds"}
        "gates": {},  # name -> {"runs", "failed", "findings", "stopped"}
        "time": dict(NO_TIME),  # the seconds, by what spent them
    }


def count_time(usage: dict, spent_on: str, seconds: float) -> None:
    """Add `seconds` to the usage, and to its share `spent_on`: model, gates or tools."""
    usage["seconds"] += seconds
    shares = usage.setdefault("time", dict(NO_TIME))  # a run checkpointed before the split
    shares[spent_on] = round(shares[spent_on] + seconds, 3)


def count_tool(usage: dict, name: str, status: str, seconds: float) -> None:
    tally = usage["tools"].setdefault(
        name, {"calls": 0, "ok": 0, "error": 0, "refused": 0, "malformed": 0, "seconds": 0.0}
    )
    tally["calls"] += 1
    tally[status] += 1
    tally["seconds"] = round(tally["seconds"] + seconds, 3)


def count_gates(usage: dict, results: list[dict]) -> None:
    """One run of the gates (`GateResult.to_dict`s); `stopped` counts their time limits, a
    retried gate's first try included."""
    for result in results:
        tally = usage["gates"].setdefault(
            result["name"], {"runs": 0, "failed": 0, "findings": 0, "stopped": 0}
        )
        tally.setdefault("stopped", 0)  # a run checkpointed before time limits were counted
        tally["runs"] += 1
        tally["failed"] += not result["passed"]
        tally["findings"] += len(result["findings"])
        stops = (result["retried_after"], result["time_limit"])
        tally["stopped"] += sum(stop is not None for stop in stops)
