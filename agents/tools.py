"""The tools a model can call, as OpenAI function schemas, and their execution in the sandbox.

Every path goes through `Sandbox.path` (escapes and protected paths are refused). A call with
arguments that are not a JSON object of the declared string fields, or naming no tool, is
malformed: the model gets an error saying what was wrong, and the run counts it. `run` runs a
command of the task's allowlist (`agents/commands.py`) and shows its result as
`agents/command_result.py` writes it; `search` is `agents/search.py`.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agents.command_result import shown
from agents.commands import Allowed, checked, listing, runnable
from agents.gates import GateContext
from agents.sandbox import Refused
from agents.search import cache_dir, search
from agents.skills import Skill, activation

MAX_RESULT_CHARS = 60_000
RUN_TIMEOUT = 600.0  # seconds a command may take, less when the time budget has less left


def _tool(name: str, description: str, /, optional: tuple[str, ...] = (), **fields: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {
                    key: {"type": "string", "description": d} for key, d in fields.items()
                },
                "required": [key for key in fields if key not in optional],
                "additionalProperties": False,
            },
        },
    }


SCHEMAS = [
    _tool("list_files", "List a folder of the repository (folders end in /).", path="e.g. ."),
    _tool("read_file", "Read a text file of the repository.", path="relative to the root"),
    _tool(
        "search",
        "Search the repository's text files for a Python regular expression; path:line: text, "
        "a few per file, and the totals (recorded runs, build and cache folders are skipped).",
        optional=("path",),
        pattern="a Python regular expression",
        path="a folder or file to search (default: the whole repository)",
    ),
    _tool(
        "write_file",
        "Create or overwrite a file with the whole content given.",
        path="relative to the root",
        content="the file's complete new text",
    ),
    _tool(
        "replace_in_file",
        "Replace the one occurrence of `old` in a file by `new`.",
        path="relative to the root",
        old="text that occurs exactly once in the file",
        new="its replacement",
    ),
    _tool("delete_file", "Delete a file of the repository.", path="relative to the root"),
    _tool("activate_skill", "Read a skill of the catalog in full.", name="the skill's name"),
    _tool(
        "run",
        "Run a project command in the sandbox (no shell; a time limit; long output is cut) and "
        "get its exit status and output. Allowed:",
        command="the command line, e.g. ntc compile compiler/suite/programs/vector_add.py",
    ),
    _tool("run_checks", "Run the task's gates now and get their findings (file:line code)."),
    _tool(
        "finish",
        "Hand in the change: the gates run; findings come back if any fail.",
        summary="what you changed and why",
    ),
]
NAMES = [schema["function"]["name"] for schema in SCHEMAS]


@dataclass(frozen=True)
class Outcome:
    text: str
    status: str  # ok, error (the tool failed), refused (the sandbox said no), malformed
    finish: str | None = None  # the summary, when the call was `finish`
    gates: list | None = None  # the gate results, when the call was `run_checks`


class ToolBox:
    def __init__(
        self,
        context: GateContext,
        skills: dict[str, Skill],
        run_checks: Callable[[float], tuple[str, list]],
        allowed: list[Allowed],
        withheld: tuple[str, ...] = (),
    ):
        self.context = context
        self.sandbox = context.sandbox
        self.skills = skills
        self.run_checks = run_checks
        self.allowed = allowed
        self.withheld = withheld
        self.seconds_left = RUN_TIMEOUT  # of the time budget, for the call in progress

    @property
    def schemas(self) -> list[dict]:
        """The tools as the model is offered them, `run` with this task's allowlist."""
        schemas = copy.deepcopy(SCHEMAS)
        run = schemas[NAMES.index("run")]["function"]
        run["description"] += "\n" + listing(self.allowed)
        return schemas

    def call(self, name: str, arguments: str, seconds_left: float = RUN_TIMEOUT) -> Outcome:
        """Run one tool call; a command may take `seconds_left` (the time budget) at most."""
        self.seconds_left = seconds_left
        if name not in NAMES:
            return Outcome(
                f"error: there is no tool {name!r}; tools: {', '.join(NAMES)}", "malformed"
            )
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError as error:
            return Outcome(
                f"error: {name} arguments are not JSON ({error.msg}); send an object", "malformed"
            )
        schema = SCHEMAS[NAMES.index(name)]["function"]["parameters"]
        problem = _mismatch(args, schema)
        if problem:
            return Outcome(f"error: {name}: {problem}", "malformed")
        try:
            return getattr(self, f"_{name}")(**args)
        except Refused as refusal:
            return Outcome(f"refused: {refusal}", "refused")
        except (OSError, UnicodeDecodeError, re.error) as error:
            return Outcome(f"error: {name}: {error}", "error")

    def _list_files(self, path: str) -> Outcome:
        folder = self.sandbox.path(path)
        if not folder.is_dir():
            return Outcome(f"error: {path} is not a folder", "error")
        entries = sorted(
            entry.name + ("/" if entry.is_dir() else "")
            for entry in folder.iterdir()
            if not (entry.is_dir() and cache_dir(entry.name))
        )
        return Outcome("\n".join(entries) or "(empty)", "ok")

    def _read_file(self, path: str) -> Outcome:
        file = self.sandbox.path(path)
        if not file.is_file():
            return Outcome(f"error: {path} is not a file; list_files shows what exists", "error")
        return Outcome(_capped(file.read_text(encoding="utf-8")), "ok")

    def _search(self, pattern: str, path: str = ".") -> Outcome:
        start = self.sandbox.path(path)
        if not start.exists():
            return Outcome(f"error: {path} does not exist; list_files shows what does", "error")
        return Outcome(_capped(search(self.sandbox.root, start, pattern)), "ok")

    def _write_file(self, path: str, content: str) -> Outcome:
        file = self.sandbox.path(path, write=True)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(content, encoding="utf-8")
        return Outcome(f"wrote {path} ({len(content.splitlines())} lines)", "ok")

    def _replace_in_file(self, path: str, old: str, new: str) -> Outcome:
        file = self.sandbox.path(path, write=True)
        if not file.is_file():
            return Outcome(f"error: {path} is not a file", "error")
        text = file.read_text(encoding="utf-8")
        count = text.count(old) if old else 0
        if count != 1:
            return Outcome(
                f"error: `old` occurs {count} times in {path}; give text that occurs exactly once",
                "error",
            )
        file.write_text(text.replace(old, new), encoding="utf-8")
        return Outcome(f"replaced 1 occurrence in {path}", "ok")

    def _delete_file(self, path: str) -> Outcome:
        file = self.sandbox.path(path, write=True)
        if not file.is_file():
            return Outcome(f"error: {path} is not a file", "error")
        file.unlink()
        return Outcome(f"deleted {path}", "ok")

    def _activate_skill(self, name: str) -> Outcome:
        if name in self.withheld:
            return Outcome(f"refused: the skill {name} is withheld in this run", "refused")
        if name not in self.skills:
            return Outcome(f"error: no skill {name!r}; skills: {', '.join(self.skills)}", "error")
        return Outcome(_capped(activation(self.skills[name])), "ok")

    def _run(self, command: str) -> Outcome:
        argv = checked(command, self.allowed, self.sandbox)
        bin_dir = Path(self.context.python).parent
        argv = runnable(argv, bin_dir)
        limit = min(RUN_TIMEOUT, self.seconds_left)
        done = self.sandbox.run(argv, limit, self.context.env, merged=True)
        return Outcome(shown(done, limit), "ok" if done.returncode == 0 else "error")

    def _run_checks(self) -> Outcome:
        text, results = self.run_checks(self.seconds_left)
        return Outcome(text, "ok", gates=results)

    def _finish(self, summary: str) -> Outcome:
        return Outcome("finish received: running the gates", "ok", finish=summary)


def _mismatch(args: object, schema: dict) -> str | None:
    if not isinstance(args, dict):
        return "arguments must be a JSON object"
    missing = [key for key in schema["required"] if key not in args]
    extra = [key for key in args if key not in schema["properties"]]
    wrong = [key for key in schema["properties"] if key in args and not isinstance(args[key], str)]
    if missing or extra or wrong:
        return (
            f"missing {missing}, unknown {extra}, not strings {wrong}; fields: "
            f"{list(schema['properties'])}, required {schema['required']}"
        )
    return None


def _capped(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return text[:MAX_RESULT_CHARS] + f"\n... cut at {MAX_RESULT_CHARS} characters; use search"
