"""Starting, resuming and replaying runs.

A run lives in `<home>/<run-id>/` (`$NTC_AGENT_HOME`, default `~/.cache/ntc-agents`): `run.json`
(what is needed to rebuild the run; never the API key), `sandbox/` (the copy it works in),
`checkpoint.sqlite` (LangGraph's checkpoints, one per step), `in_flight.json` (the command running,
`agents/in_flight.py`: a resume ends one a killed workflow left), `lock` (held by the one process
that drives the run, `agents/lock.py`), `cache/` and `gates/` (what the gates write), and for the
manual provider `requests/` and `responses/`. Its transcript goes to `transcripts/<run-id>/` of
the checkout (a replay's to `<home>/<run-id>/transcript/`); a resumed run settles the requests
its checkpoint does not count from it (`agents/ledger.py`).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from agents import in_flight
from agents.budget import Budget
from agents.client import ModelClient, RetryPolicy
from agents.errors import AgentError
from agents.gates import GateContext, check_kinds
from agents.graph import build_graph
from agents.ledger import Ledger
from agents.lock import run_lock
from agents.providers import check_model, make_provider
from agents.redact import SECRET_NAME, Redactor
from agents.runtime import Runtime
from agents.sandbox import EARLIER_RUNS, Sandbox
from agents.skills import load_skills
from agents.tasks import TASKS_DIR, Task, load_task
from agents.transcript import TranscriptWriter, read_events, transcript_file

PROJECT_ROOT = Path(__file__).resolve().parents[1]
TVM_PYTHON = PROJECT_ROOT / ".venv-tvm" / "bin" / "python"
RECURSION_LIMIT = 100_000  # steps of the graph; the budgets end a run long before
RUN_FILE = "run.json"


@dataclass
class RunSpec:
    run_id: str
    task: str  # a task name in agents/tasks/, or a YAML path
    params: dict[str, str]
    model: str  # the MODEL setting: a model name, manual[:who], replay:<transcript>
    base_url: str | None
    repo: str  # the checkout the sandbox is cloned from
    commit: str
    home: str
    out: str  # the transcript folder
    approve: bool = False
    budget: dict = field(default_factory=dict)  # overrides of the task's budget
    retry: dict = field(default_factory=dict)  # RetryPolicy fields
    manual_stdin: bool = False
    replay_of: str | None = None

    @property
    def folder(self) -> Path:
        return Path(self.home) / self.run_id


@dataclass(frozen=True)
class RunResult:
    run_id: str
    status: str  # green, stopped, or paused (awaiting approval or the endpoint)
    out: Path
    pending: dict | None = None  # what the paused run waits for


def default_home() -> Path:
    return Path(os.environ.get("NTC_AGENT_HOME") or Path.home() / ".cache" / "ntc-agents")


def new_run_id(task: str) -> str:
    return f"{Path(task).stem}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def start(spec: RunSpec, api_key: str | None = None, say: Callable[[str], None] = print):
    repo = Path(spec.repo).resolve()
    if Path(spec.home).resolve().is_relative_to(repo):
        raise AgentError(
            f"the run home {spec.home} is inside {repo}; set NTC_AGENT_HOME outside it"
        )
    if spec.folder.exists():
        raise AgentError(f"{spec.folder} exists already; give the run another id")
    task = load_task(spec.task, spec.params)
    check_kinds(task.gates, str(task.source))
    check_model(spec.model, api_key)
    spec.commit = _resolve(repo, spec.commit)
    spec.folder.mkdir(parents=True)
    with run_lock(spec.folder, spec.run_id):
        sandbox = Sandbox.create(
            repo, spec.folder / "sandbox", spec.commit, task.allow_edits, task.writable
        )
        sandbox = prepare_sandbox(sandbox, task)
        (spec.folder / RUN_FILE).write_text(json.dumps(asdict(spec), indent=1) + "\n")
        rt = _runtime(spec, task, sandbox, api_key, say, events=None)
        return _drive(rt, spec, {"messages": []})


def resume(
    run_id: str,
    home: Path | None = None,
    answer: str | None = None,
    api_key: str | None = None,
    say: Callable[[str], None] = print,
) -> RunResult:
    folder = (home or default_home()) / run_id
    if not (folder / RUN_FILE).is_file():
        raise AgentError(f"no run {run_id} in {folder.parent}; set NTC_AGENT_HOME or --home to it")
    spec = RunSpec(**json.loads((folder / RUN_FILE).read_text()))
    with run_lock(folder, run_id):
        task = load_task(spec.task, spec.params)
        events = read_events(Path(spec.out))
        sandbox = Sandbox.open(spec.folder / "sandbox", task.allow_edits, task.writable)
        sandbox.base = events[0]["base"]
        rt = _runtime(spec, task, sandbox, api_key, say, events=events)
        with _checkpointer(spec) as saver:
            snapshot = build_graph(rt).compile(checkpointer=saver).get_state(_config(spec))
        if not snapshot.next:
            raise AgentError(f"run {run_id} has finished; its report is in {spec.out}")
        waiting = [i.value for t in snapshot.tasks for i in t.interrupts]
        if waiting and "question" in waiting[0] and answer is None:
            raise AgentError(
                f"run {run_id} awaits approval: resume it with --answer yes or --answer '<why not>'"
            )
        rt.interrupted = _end_interrupted(rt)
        rt.transcript.event("resume", answer=answer, waiting=waiting)
        return _drive(rt, spec, Command(resume=answer or "retry") if waiting else None)


def replay(
    transcript: Path,
    home: Path | None = None,
    at_head: bool = False,
    say: Callable[[str], None] = print,
) -> RunResult:
    """Run the recorded task again, answering model calls from `transcript` (see
    `agents/providers/replay.py`); tools and gates run for real in a fresh sandbox of the
    recorded base commit (or HEAD with `at_head`, or when the commit is not in this checkout)."""
    file = transcript_file(transcript).resolve()
    events = read_events(file)
    header = events[0]
    commit = header["commit"]
    if at_head or not _has_commit(PROJECT_ROOT, commit):
        if not at_head:
            say(f"replay: commit {commit[:12]} is not in this checkout; replaying at HEAD")
        commit = "HEAD"
    home = home or default_home()
    run_id = new_run_id(f"replay-{header['task']}")
    spec = RunSpec(
        run_id=run_id,
        task=header["task_source"],
        params=header["params"],
        model=f"replay:{file}",
        base_url=None,
        repo=str(PROJECT_ROOT),
        commit=commit,
        home=str(home),
        out=str(home / run_id / "transcript"),
        approve=header["approve"],
        budget=header["budget"],
        replay_of=str(file),
    )
    result = start(spec, say=say)
    answers = [event["answer"] for event in events if event["type"] == "approval"]
    while result.status == "paused" and answers:
        result = resume(run_id, home, answer=answers.pop(0), say=say)
    return result


def bundled_transcript(task_name: str, params: dict[str, str]) -> Path:
    """The newest green transcript in transcripts/ of this task with these parameters."""
    wanted = load_task(task_name, params).params
    found = []
    for file in sorted((PROJECT_ROOT / "transcripts").glob("*/transcript.jsonl")):
        events = read_events(file)
        header, last = events[0], events[-1]
        if header["task"] == task_name and header["params"] == wanted:
            if last["type"] == "report" and last["status"] == "green":
                found.append((header["time"], file))
    if not found:
        raise AgentError(
            f"no bundled transcript of {task_name} with {wanted} in transcripts/; set "
            "OPENAI_API_KEY, OPENAI_BASE_URL and MODEL to run it live (or MODEL=manual)"
        )
    return max(found)[1]


def _runtime(spec: RunSpec, task: Task, sandbox: Sandbox, api_key, say, events) -> Runtime:
    """The run's runtime; `events`: its transcript so far when it resumes, else None."""
    folder = spec.folder.resolve()
    paths = {
        "<sandbox>": str(sandbox.root),
        "<run>": str(folder),
        "<repo>": str(Path(spec.repo).resolve()),
        "<python>": sys.executable,
        "<venv>": sys.prefix,
        "<home>": str(Path.home()),
    }
    redactor = Redactor.from_environment([api_key] if api_key else [])
    transcript = TranscriptWriter(Path(spec.out), redactor)
    provider = make_provider(
        spec.model,
        base_url=spec.base_url,
        api_key=api_key,
        folder=folder,
        paths=paths,
        stdin=spec.manual_stdin,
    )
    budget = Budget.from_dict({**task.budget, **spec.budget})
    if events:
        header = events[0]
    else:
        header = transcript.event(
            "run",
            run_id=spec.run_id,
            task=task.name,
            task_source=_task_source(task),
            params=task.params,
            provider=provider.provider,
            model=provider.model,
            base_url=getattr(provider, "base_url", None),
            commit=spec.commit,
            base=sandbox.base,
            budget=budget.to_dict(),
            approve=spec.approve,
            replay_of=spec.replay_of,
            paths=paths,
            versions={name: version(name) for name in ("langgraph", "openai")},
        )
    scratch = folder / "gates"
    scratch.mkdir(exist_ok=True)
    sandbox.in_flight = in_flight.InFlight(folder / in_flight.FILE_NAME)
    return Runtime(
        run_id=spec.run_id,
        task=task,
        sandbox=sandbox,
        skills=load_skills(sandbox.root),
        client=ModelClient(
            provider, budget, transcript, RetryPolicy(**spec.retry), Ledger(events or [])
        ),
        transcript=transcript,
        budget=budget,
        gate_context=GateContext(sandbox, sys.executable, gate_env(folder, sandbox), scratch),
        approve=spec.approve,
        out=Path(spec.out),
        header=header,
        say=lambda text: say(f"[{spec.run_id}] {text}"),
    )


def _end_interrupted(rt: Runtime) -> in_flight.Command | None:
    """End what is left of a command the killed workflow had in flight, before anything else
    runs; the last command's record, for the step it belonged to (`Nodes.tools`)."""
    recovered = rt.sandbox.in_flight.recover()
    if recovered is None:
        return None
    command, ended = recovered
    if ended:
        rt.transcript.event("ended_command", step=command.step, argv=command.argv)
        rt.say(f"ended what was left of the interrupted command: {' '.join(command.argv)}")
    return command


def _drive(rt: Runtime, spec: RunSpec, graph_input) -> RunResult:
    with _checkpointer(spec) as saver:
        app = build_graph(rt).compile(checkpointer=saver)
        try:
            result = app.invoke(graph_input, _config(spec), durability="sync")
        except BaseException as error:  # Ctrl-C included: the checkpoint has every step before
            rt.transcript.event("interrupted", error=f"{type(error).__name__}: {error}")
            raise
    waiting = result.get("__interrupt__")
    if waiting:
        rt.say(f"paused: resume with `make agent RESUME={spec.run_id}`")
        return RunResult(spec.run_id, "paused", Path(spec.out), waiting[0].value)
    return RunResult(spec.run_id, result["outcome"], Path(spec.out))


@contextmanager
def _checkpointer(spec: RunSpec):
    path = spec.folder / "checkpoint.sqlite"
    with closing(sqlite3.connect(path, check_same_thread=False)) as connection:
        yield SqliteSaver(connection)


def _config(spec: RunSpec) -> dict:
    return {"configurable": {"thread_id": spec.run_id}, "recursion_limit": RECURSION_LIMIT}


def prepare_sandbox(sandbox: Sandbox, task: Task) -> Sandbox:
    """Take out the earlier runs (unless the task keeps them), copy the task's setup files in,
    take out the skills it withholds, and commit: the run's diff starts after all that."""
    removed = [] if task.keep_earlier_runs else sandbox.remove(EARLIER_RUNS)
    if not removed and not task.setup and not task.withhold:
        return sandbox
    for relative, source in task.setup:
        target = sandbox.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    skills = load_skills(sandbox.root)
    for name in task.withhold:
        if name not in skills:
            raise AgentError(
                f"{task.source}: withholds the skill {name!r}, which the sandbox does not have; "
                f"skills: {', '.join(skills)}"
            )
        shutil.rmtree(sandbox.root / skills[name].folder)
    sandbox.commit(f"task {task.name}: setup")
    return Sandbox.open(sandbox.root, task.allow_edits, task.writable)


def _task_source(task: Task) -> str:
    return task.name if task.source.parent == TASKS_DIR else str(task.source)


def gate_env(folder: Path, sandbox: Sandbox) -> dict[str, str]:
    """The environment of the gates and the `run` tool: no secrets; the sandbox first on the
    import path; the checkout's TVM interpreter, since a sandbox has no `.venv-tvm`."""
    env = {k: v for k, v in os.environ.items() if not SECRET_NAME.search(k)}
    path = [str(sandbox.root), *filter(None, [env.get("PYTHONPATH")])]
    env |= {
        "PYTHONPATH": os.pathsep.join(path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "TRITON_INTERPRET": "1",
        "NTC_CACHE_DIR": str(folder / "cache"),
    }
    if TVM_PYTHON.is_file():
        env.setdefault("NTC_TVM_PYTHON", str(TVM_PYTHON))
    return env


def _resolve(repo: Path, commit: str) -> str:
    if not _has_commit(repo, commit):
        raise AgentError(f"{repo}: {commit} is not a commit of this checkout; give --commit REV")
    return subprocess.run(
        ["git", "rev-parse", f"{commit}^{{commit}}"], cwd=repo, capture_output=True, text=True
    ).stdout.strip()


def _has_commit(repo: Path, commit: str) -> bool:
    done = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=repo, capture_output=True
    )
    return done.returncode == 0
