"""The graph's nodes. Each returns the state it changes; side effects (files, gates, transcript)
happen after any `interrupt`, because a resumed node runs again from its start."""

from __future__ import annotations

import copy
import time

from langgraph.types import interrupt

from agents.budget import count_gates, count_time, count_tool, new_usage
from agents.command_result import INTERRUPTED
from agents.errors import BudgetExhausted, ModelError, ReplayMismatch
from agents.prompts import TEXT_ONLY, rejected, system_prompt, task_prompt
from agents.runtime import Runtime
from agents.state import AgentState
from agents.tools import Outcome

APPROVALS = {"y", "yes", "approve", "approved", "accept", "ok"}


class Nodes:
    def __init__(self, rt: Runtime):
        self.rt = rt

    def prepare(self, state: AgentState) -> dict:
        """The task and its skills: the catalog in the system prompt, the task as the first ask."""
        rt = self.rt
        params = f" {rt.task.params}" if rt.task.params else ""
        rt.say(f"task {rt.task.name}{params} in {rt.sandbox.root}")
        return {
            "messages": [
                {"role": "system", "content": system_prompt(rt.task, rt.skills)},
                {"role": "user", "content": task_prompt(rt.task)},
            ],
            "usage": new_usage(),
            "calls": 0,
            "pending": [],
            "summary": None,
            "gates": [],
            "rounds": 0,
            "outcome": "",
            "reason": "",
            "outage": "",
            "verdict": "",
        }

    def model(self, state: AgentState) -> dict:
        usage = copy.deepcopy(state["usage"])
        request = {"messages": state["messages"], "tools": self.rt.tools.schemas}
        try:
            reply = self.rt.client.complete(request, usage, state["calls"])
        except BudgetExhausted as exhausted:
            self.rt.say(f"stopped: {exhausted}")
            return {"usage": usage, "outcome": "stopped", "reason": str(exhausted)}
        except ReplayMismatch:
            raise  # a replay that diverges must fail loudly, not pause
        except ModelError as error:
            self.rt.say(f"paused: {error}")
            return {"usage": usage, "outage": str(error)}
        message = reply["message"]
        calls = message.get("tool_calls") or []
        names = ", ".join(call["function"]["name"] for call in calls) or "text only"
        self.rt.say(f"call {state['calls'] + 1}: {names}")
        messages = [*state["messages"], message]
        if not calls:
            messages.append({"role": "user", "content": TEXT_ONLY})
        return {"messages": messages, "usage": usage, "calls": state["calls"] + 1, "pending": calls}

    def tools(self, state: AgentState) -> dict:
        """Run the next pending tool call (one per step, so a resumed run repeats none)."""
        call, *rest = state["pending"]
        start = time.monotonic()
        name, arguments = call["function"]["name"], call["function"]["arguments"]
        outcome = self._call(state, call)
        seconds = time.monotonic() - start
        usage = copy.deepcopy(state["usage"])
        count_time(usage, "gates" if outcome.gates is not None else "tools", seconds)
        usage["malformed_tool_calls"] += outcome.status == "malformed"
        usage["refused_tool_calls"] += outcome.status == "refused"
        count_tool(usage, name, outcome.status, seconds)
        self.rt.transcript.event(
            "tool",
            call_id=call["id"],
            name=name,
            arguments=arguments,
            status=outcome.status,
            result=outcome.text,
            seconds=round(seconds, 3),
        )
        update = {
            "messages": [
                *state["messages"],
                {"role": "tool", "tool_call_id": call["id"], "content": outcome.text},
            ],
            "pending": rest,
            "usage": usage,
        }
        if outcome.finish is not None:
            update["summary"] = outcome.finish
        if outcome.gates is not None:
            update["gates"] = [r.to_dict() for r in outcome.gates]
            update["rounds"] = state["rounds"] + 1
            count_gates(usage, update["gates"])
        return update

    def _call(self, state: AgentState, call: dict) -> Outcome:
        """The pending `call`'s outcome. A `run` call whose command was in flight when the
        workflow was killed is not run again (it may have done its work, or half of it): the
        model is told. Other tools run again; the gates' commands must judge the tree as it is."""
        name, arguments = call["function"]["name"], call["function"]["arguments"]
        step = f"call {state['calls']}, {len(state['pending'])} pending: {call['id']}"
        interrupted = self.rt.interrupted
        if name == "run" and interrupted is not None and interrupted.step == step:
            return Outcome(INTERRUPTED, "error")
        seconds_left = self.rt.budget.remaining_seconds(state["usage"])
        with self.rt.sandbox.in_flight.during(step):
            return self.rt.tools.call(name, arguments, seconds_left)

    def gates(self, state: AgentState) -> dict:
        start = time.monotonic()
        seconds_left = self.rt.budget.remaining_seconds(state["usage"])
        text, results = self.rt.check(seconds_left, after_finish=True)
        usage = copy.deepcopy(state["usage"])
        count_time(usage, "gates", time.monotonic() - start)
        count_gates(usage, [r.to_dict() for r in results])
        update = {
            "gates": [r.to_dict() for r in results],
            "rounds": state["rounds"] + 1,
            "summary": None,
            "usage": usage,
        }
        if all(r.passed for r in results):
            return update | {"outcome": "green"}
        return update | {"messages": [*state["messages"], {"role": "user", "content": text}]}

    def approve(self, state: AgentState) -> dict:
        """Ask a human (a LangGraph interrupt: the run waits, checkpointed, for the answer)."""
        stat = self.rt.sandbox.diff_stat()
        answer = str(
            interrupt({"run": self.rt.run_id, "question": "Accept this change?", "diff": stat})
        )
        self.rt.transcript.event("approval", answer=answer)
        if answer.strip().lower() in APPROVALS:
            return {"verdict": "approved"}
        message = {"role": "user", "content": rejected(answer)}
        return {"verdict": answer, "outcome": "", "messages": [*state["messages"], message]}

    def outage(self, state: AgentState) -> dict:
        """Wait, checkpointed, for the user to resume (the endpoint is back, the key fixed)."""
        interrupt({"run": self.rt.run_id, "error": state["outage"]})
        self.rt.transcript.event("resume_after_outage", error=state["outage"])
        return {"outage": ""}

    # Routing: each names the next node from the state.

    def after_model(self, state: AgentState) -> str:
        if state["outcome"] == "stopped":
            return "report"
        if state["outage"]:
            return "outage"
        return "tools" if state["pending"] else "model"

    def after_tools(self, state: AgentState) -> str:
        if state["pending"]:
            return "tools"
        return "gates" if state["summary"] is not None else "model"

    def after_gates(self, state: AgentState) -> str:
        if state["outcome"] != "green":
            return "model"
        return "approve" if self.rt.approve else "report"

    def after_approve(self, state: AgentState) -> str:
        return "report" if state["verdict"] == "approved" else "model"
