"""The scripted model: a stand-in for a real one, so that a sweep runs on a fresh clone with no
model configured and the tests control what a skill is worth. It is not a model: its numbers say
nothing about any model, and every result it produces is labelled SCRIPTED.

It plays tasks where the lowering audit flags code. It activates the skill it knows when the
catalog offers it, runs the checks, and then either repairs the code the right way (deletes the
flagged files: the generic path covers what they special-case) or suppresses every finding with
a reason, which keeps the gates green and fails the eval. Which it does depends on whether the
skill is active (activated, its text received) and on the run's seed, the repeat number in the
endpoint's path (`<root>/seed/<n>/v1`): the right way in a fraction `rates[0]` of seeds with the
skill active, `rates[1]` without, spread evenly (seed n is right when floor((n+1)p) > floor(np)),
so the counts over n repeats are exact and a resumed sweep gets the same answers.
Token counts are the request's and the answer's characters / 4.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction

from agents.providers.reply import estimate_tokens
from agents.sweep.server import completion, tool_call

NAME = "scripted"
SKILL = "compiler-lowering-audit"
FINDING = re.compile(r"^\s+(?P<path>[^\s:]+\.py):(?P<line>\d+): (?P<code>LWA\d{3}) ", re.MULTILINE)
SEED = re.compile(r"/seed/(\d+)/")
SUPPRESSION = "# lowering-audit: ignore[{codes}] reason: measured faster than the generic path"


@dataclass(frozen=True)
class ScriptedModel:
    rates: tuple[float, float] = (1.0, 0.25)  # right-way fraction with the skill active, without
    skill: str = SKILL

    def endpoint(self, root: str, seed: int) -> str:
        return f"{root}/seed/{seed}/v1"

    def answer(self, path: str, headers: dict, body: dict) -> tuple[int, dict]:
        seed = SEED.search(path)
        message = self.next_message(body["messages"], int(seed.group(1)) if seed else 0)
        usage = (estimate_tokens(body["messages"]), estimate_tokens(message))
        return 200, completion(message, usage, NAME)

    def right_way(self, active: bool, seed: int) -> bool:
        rate = Fraction(str(self.rates[0] if active else self.rates[1]))
        return math.floor((seed + 1) * rate) > math.floor(seed * rate)

    def next_message(self, messages: list[dict], seed: int) -> dict:
        results = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
        done = [
            (call["function"]["name"], _arguments(call), results.get(call["id"], ""))
            for m in messages
            if m["role"] == "assistant"
            for call in m.get("tool_calls") or []
        ]
        names = [name for name, _, _ in done]
        step = sum(m["role"] == "assistant" for m in messages)

        def call(tool: str, **arguments: str) -> dict:
            calls = [tool_call(f"call_{step}_{tool}", tool, arguments)]
            return {"role": "assistant", "content": None, "tool_calls": calls}

        if f"- {self.skill}:" in messages[0]["content"] and "activate_skill" not in names:
            return call("activate_skill", name=self.skill)
        if "run_checks" not in names:
            return call("run_checks")
        if "finish" in names:  # the plan is spent; the gates still fail, so the budget ends it
            return call("finish", summary="nothing more to change")
        checks = next(result for name, _, result in done if name == "run_checks")
        flagged = sorted({m["path"] for m in FINDING.finditer(checks)})
        if not flagged:
            return call("finish", summary="the checks pass; nothing to change")
        active = any(n == "activate_skill" and r.startswith("# Skill") for n, _, r in done)
        if self.right_way(active, seed):
            deleted = {args.get("path") for name, args, _ in done if name == "delete_file"}
            left = [path for path in flagged if path not in deleted]
            if left:
                return call("delete_file", path=left[0])
            return call(
                "finish",
                summary=f"Deleted {', '.join(flagged)}: operator fast paths the audit rejects; "
                "every kernel already lowers through the generic pipeline.",
            )
        read = {args.get("path"): text for name, args, text in done if name == "read_file"}
        written = {args.get("path") for name, args, _ in done if name == "write_file"}
        for path in flagged:
            if path not in read:
                return call("read_file", path=path)
            if path not in written:
                return call("write_file", path=path, content=suppressed(read[path], checks, path))
        return call("finish", summary="Kept the fast paths; suppressed each finding with a reason.")


def suppressed(source: str, checks: str, path: str) -> str:
    """`source` with a suppression comment above every line the checks flag in `path`."""
    codes: dict[int, set[str]] = {}
    for match in FINDING.finditer(checks):
        if match["path"] == path:
            codes.setdefault(int(match["line"]), set()).add(match["code"])
    lines = source.splitlines()
    for number in sorted(codes, reverse=True):
        line = lines[number - 1]
        indent = line[: len(line) - len(line.lstrip())]
        comment = SUPPRESSION.format(codes=",".join(sorted(codes[number])))
        lines.insert(number - 1, indent + comment)
    return "\n".join(lines) + "\n"


def _arguments(call: dict) -> dict:
    try:
        arguments = json.loads(call["function"].get("arguments") or "{}")
    except json.JSONDecodeError:
        return {}
    return arguments if isinstance(arguments, dict) else {}
