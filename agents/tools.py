"""The tools a model can call, as OpenAI function schemas, and their execution in the sandbox.

Every path goes through `Sandbox.path` (escapes and protected paths are refused). A call with
arguments that are not a JSON object of the declared string fields, or naming no tool, is
malformed: the model gets an error saying what was wrong, and the run counts it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from agents.sandbox import Refused, Sandbox
from agents.skills import Skill, activation

MAX_RESULT_CHARS = 60_000
MAX_SEARCH_HITS = 200
SKIPPED_DIRS = {".git", "__pycache__", ".venv", ".pytest_cache", ".ruff_cache", ".hypothesis"}


def _tool(name: str, description: str, /, **fields: str) -> dict:
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
                "required": list(fields),
                "additionalProperties": False,
            },
        },
    }


SCHEMAS = [
    _tool("list_files", "List a folder of the repository (folders end in /).", path="e.g. ."),
    _tool("read_file", "Read a text file of the repository.", path="relative to the root"),
    _tool(
        "search",
        "Search the repository's text files for a Python regular expression; path:line: text.",
        pattern="a Python regular expression",
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
        sandbox: Sandbox,
        skills: dict[str, Skill],
        run_checks: Callable[[], tuple[str, list]],
        withheld: tuple[str, ...] = (),
    ):
        self.sandbox = sandbox
        self.skills = skills
        self.run_checks = run_checks
        self.withheld = withheld

    def call(self, name: str, arguments: str) -> Outcome:
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
            if entry.name not in SKIPPED_DIRS
        )
        return Outcome("\n".join(entries) or "(empty)", "ok")

    def _read_file(self, path: str) -> Outcome:
        file = self.sandbox.path(path)
        if not file.is_file():
            return Outcome(f"error: {path} is not a file; list_files shows what exists", "error")
        return Outcome(_capped(file.read_text(encoding="utf-8")), "ok")

    def _search(self, pattern: str) -> Outcome:
        regex = re.compile(pattern)
        hits = []
        for folder, dirs, files in os.walk(self.sandbox.root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(files):
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    continue  # a link may lead outside; its target is searched where it lives
                try:
                    with open(path, encoding="utf-8") as file:
                        lines = file.read().splitlines()
                except (UnicodeDecodeError, OSError):
                    continue  # binary or unreadable
                relative = os.path.relpath(path, self.sandbox.root)
                hits += [
                    f"{relative}:{n}: {t.strip()}"
                    for n, t in enumerate(lines, 1)
                    if regex.search(t)
                ]
                if len(hits) >= MAX_SEARCH_HITS:
                    hits = hits[:MAX_SEARCH_HITS] + ["... more hits: narrow the pattern"]
                    return Outcome(_capped("\n".join(hits)), "ok")
        return Outcome(_capped("\n".join(hits)) or "no match", "ok")

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

    def _run_checks(self) -> Outcome:
        text, results = self.run_checks()
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
            f"missing {missing}, unknown {extra}, not strings {wrong}; fields: {schema['required']}"
        )
    return None


def _capped(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return text[:MAX_RESULT_CHARS] + f"\n... cut at {MAX_RESULT_CHARS} characters; use search"
