"""Tasks as data: one YAML file per task in this folder (or any path given to `--task`).

Keys: `description`; `params` (NAME: {default, pattern, help}), substituted as `{NAME}` in every
string below; `prompt`; `skills` (recommended skill names); `commands` (what the `run` tool may
run besides the skills' commands, e.g. `cc --version`; see `agents/commands.py`); `allow_edits`
(protected path prefixes this task may change, e.g. `tests/`); `writable` (globs of protected
paths where the model may add new files, never change existing ones: its own tests, where the
recommended skills say they go); `adds` (op, pass, kernel or backend: which of the skills' "new
tests when a change adds ..." rows `writable` must cover, tests/agents/test_agents_tasks.py);
`scratch` (true: proof programs go to `scratch/`, outside the patch, and `python scratch/X.py`
runs them); `setup` (files planted into the sandbox before the run: `{path, from}` with `from`
relative to the task file); `withhold` (skill names taken out of the sandbox and the catalog, to
measure what a skill is worth); `keep_earlier_runs` (true: leave `transcripts/` and other
recorded runs in the sandbox); `gates` (in order: `{kind, name?, args?, select?, script?,
timeout?, added?, affected?, mentions?, about?, typical?}`, kinds in `agents/gates/`; `added:
true` makes a pytest gate run the test files the model added too; `affected: true` runs only the
tests under its `args` that the change touches, `mentions` naming what the task adds
(`agents/gates/affected.py`); `about` says what a gate runs where its kind cannot say it well
(`agents.gates.describe`); `typical`: the seconds a round of the gate takes on a 2-core machine
for a change like the task's, as `python -m agents gates` measured it (a gate that runs only the
tests the model adds has none); the prompt lists both);
`success` (criteria checked after the gates: `files_exist`,
`diff_forbids`, `diff_touches`); `budget` (see `agents.budget.Budget`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from agents.errors import AgentError

TASKS_DIR = Path(__file__).parent
KEYS = {"description", "params", "prompt", "skills", "allow_edits", "setup", "gates", "success"}
KEYS |= {"budget", "withhold", "commands", "keep_earlier_runs", "writable", "adds", "scratch"}
GATE_KEYS = {"kind", "name", "args", "select", "script", "timeout", "added", "affected"}
GATE_KEYS |= {"mentions", "about", "typical"}
SUCCESS_KEYS = {"files_exist", "diff_forbids", "diff_touches"}
PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
DEFAULT_GATE_TIMEOUT = 600.0


@dataclass(frozen=True)
class GateSpec:
    kind: str
    name: str
    args: tuple[str, ...] = ()
    select: tuple[str, ...] = ()  # for `pytest` gates: parametrize ids to keep (agents/gates/)
    script: Path | None = None  # for `script` gates: the check script, shipped with the task
    timeout: float = DEFAULT_GATE_TIMEOUT
    added: bool = False  # for `pytest` gates: also run the test files the run added (`writable`)
    affected: bool = False  # for `pytest` gates: only the tests the change touches (affected.py)
    mentions: tuple[str, ...] = ()  # for `affected`: names the task adds, as tests would say them
    about: str = ""  # what the gate runs, for the prompt, where its kind's own words fall short
    typical: float | None = None  # seconds per round on a 2-core machine (`python -m agents gates`)
    success: tuple[tuple[str, tuple[str, ...]], ...] = ()  # for the `success` gate


@dataclass(frozen=True)
class Task:
    name: str
    source: Path  # the YAML file
    description: str
    params: dict[str, str]
    prompt: str
    skills: tuple[str, ...]
    allow_edits: tuple[str, ...]
    setup: tuple[tuple[str, Path], ...]  # (path in the sandbox, file to copy there)
    gates: tuple[GateSpec, ...]
    budget: dict
    withhold: tuple[str, ...] = ()  # skills this run must do without
    commands: tuple[str, ...] = ()  # the `run` tool's commands besides the skills' ones
    keep_earlier_runs: bool = False  # leave recorded runs (transcripts/) in the sandbox
    writable: tuple[str, ...] = ()  # globs of protected paths where new files may be added
    adds: str = ""  # what the task adds (op, pass, kernel, backend): the skills' new-test rows
    scratch: bool = False  # proof programs in scratch/, run with `python` (agents/commands.py)


def task_file(name_or_path: str) -> Path:
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml"):
        if not path.is_file():
            raise AgentError(f"task file {path} does not exist")
        return path.resolve()
    file = TASKS_DIR / f"{name_or_path}.yaml"
    if not file.is_file():
        raise AgentError(f"no task {name_or_path!r}; tasks: {', '.join(task_names())}")
    return file


def task_names() -> list[str]:
    return sorted(p.stem for p in TASKS_DIR.glob("*.yaml"))


def load_task(name_or_path: str, given: dict[str, str] | None = None) -> Task:
    file = task_file(name_or_path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise AgentError(f"{file}: not YAML: {error}") from None
    _check_keys(file, "the task", data, KEYS)
    params = _params(file, data.get("params") or {}, given or {})

    def fill(value):
        if isinstance(value, str):
            return _substitute(file, value, params)
        if isinstance(value, list):
            return [fill(item) for item in value]
        if isinstance(value, dict):
            return {key: fill(item) for key, item in value.items()}
        return value

    data = fill({key: value for key, value in data.items() if key != "params"})
    if not data.get("prompt"):
        raise AgentError(f"{file}: the task has no prompt")
    gates = [_gate(file, gate) for gate in data.get("gates") or []]
    success = data.get("success") or {}
    _check_keys(file, "success", success, SUCCESS_KEYS)
    if success:
        items = tuple((key, tuple(values)) for key, values in success.items())
        gates.append(GateSpec(kind="success", name="success", success=items))
    setup = tuple(
        (item["path"], (file.parent / item["from"]).resolve()) for item in data.get("setup") or []
    )
    return Task(
        name=file.stem,
        source=file,
        description=str(data.get("description", "")).strip(),
        params=params,
        prompt=data["prompt"].strip(),
        skills=tuple(data.get("skills") or ()),
        allow_edits=tuple(data.get("allow_edits") or ()),
        setup=setup,
        gates=tuple(gates),
        budget=dict(data.get("budget") or {}),
        withhold=tuple(data.get("withhold") or ()),
        commands=tuple(str(c) for c in data.get("commands") or ()),
        keep_earlier_runs=bool(data.get("keep_earlier_runs", False)),
        writable=tuple(str(glob) for glob in data.get("writable") or ()),
        adds=str(data.get("adds", "")),
        scratch=bool(data.get("scratch", False)),
    )


def _params(file: Path, declared: dict, given: dict[str, str]) -> dict[str, str]:
    unknown = set(given) - set(declared)
    if unknown:
        known = ", ".join(sorted(declared)) or "none"
        raise AgentError(f"task {file.stem} takes no parameter {sorted(unknown)}; it takes {known}")
    params = {}
    for name, spec in declared.items():
        value = str(given.get(name, spec.get("default", "")))
        pattern = spec.get("pattern", r"[A-Za-z0-9_.-]+")
        if not re.fullmatch(pattern, value):
            raise AgentError(
                f"{file}: parameter {name}={value!r} must match {pattern}; {spec.get('help', '')}"
            )
        params[name] = value
    return params


def _substitute(file: Path, text: str, params: dict[str, str]) -> str:
    def replace(match: re.Match) -> str:
        if match.group(1) not in params:
            raise AgentError(f"{file}: {match.group(0)} is not a declared parameter")
        return params[match.group(1)]

    return PLACEHOLDER.sub(replace, text)


def _gate(file: Path, gate: dict) -> GateSpec:
    _check_keys(file, "a gate", gate, GATE_KEYS)
    script = gate.get("script")
    if script is not None:
        script = (file.parent / script).resolve()
        if not script.is_file():
            raise AgentError(f"{file}: gate script {script} does not exist")
    return GateSpec(
        kind=gate["kind"],
        name=gate.get("name", gate["kind"]),
        args=tuple(str(a) for a in gate.get("args") or ()),
        select=tuple(str(s) for s in gate.get("select") or ()),
        script=script,
        timeout=float(gate.get("timeout", DEFAULT_GATE_TIMEOUT)),
        added=bool(gate.get("added", False)),
        affected=bool(gate.get("affected", False)),
        mentions=tuple(str(m) for m in gate.get("mentions") or ()),
        about=str(gate.get("about", "")).strip(),
        typical=float(gate["typical"]) if "typical" in gate else None,
    )


def _check_keys(file: Path, what: str, data: object, allowed: set[str]) -> None:
    if not isinstance(data, dict):
        raise AgentError(f"{file}: {what} must be a mapping")
    unknown = set(data) - allowed
    if unknown:
        raise AgentError(
            f"{file}: {what} has unknown keys {sorted(unknown)}; allowed: {sorted(allowed)}"
        )
