"""`python -m agents` (what `make agent` runs).

  run --task NAME|FILE [--param K=V ...] [--approve]   a run with the model MODEL names: a model at
      OPENAI_BASE_URL (key in OPENAI_API_KEY), `manual[:who]` or `replay:PATH`. With neither
      OPENAI_API_KEY nor MODEL set, the task's bundled transcript in transcripts/ is replayed.
  replay PATH [--at-head]      replay a transcript (tools and gates run for real)
  resume RUN_ID [--answer A]   go on from a run's last checkpoint (A answers an approval)
  tasks                        list the tasks
  gates --task NAME [--param K=V ...] [--patch FILE]
                               the task's gates on a change (the patch), no model: each gate's
                               verdict and seconds (how a task's `typical` times are measured)
  render PATH                  write a transcript's Markdown again
  eval [--skill S] [--model M] [--repeat N] [--workers K | --ray ADDRESS] ...
                               skill evals, each run with and without its skill and graded;
                               without a model, against the scripted model (agents/sweep/cli.py)

Exit status: 0 green, 1 stopped by a budget or a replay that diverged, 2 a problem to fix before
running (the message says where), 3 paused (awaiting approval or the model endpoint).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agents.errors import AgentError, ReplayMismatch
from agents.gate_check import check_gates
from agents.render import render_transcript
from agents.run import (
    PROJECT_ROOT,
    RunResult,
    RunSpec,
    bundled_transcript,
    default_home,
    new_run_id,
    replay,
    resume,
    start,
)
from agents.sweep.cli import add_sweep_arguments, run_sweep
from agents.tasks import load_task, task_names
from agents.transcript import read_events

EXIT = {"green": 0, "stopped": 1, "paused": 3}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.command(args)
    except ReplayMismatch as error:
        print(f"REPLAY MISMATCH: {error}", file=sys.stderr)
        return 1
    except AgentError as error:
        print(f"agents: {error}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    params = dict(_pair(p) for p in args.param)
    model = args.model or os.environ.get("MODEL", "")
    api_key = os.environ.get("OPENAI_API_KEY")
    home = Path(args.home) if args.home else default_home()
    if not model and not api_key:
        file = bundled_transcript(load_task(args.task, params).name, params)
        header = read_events(file)[0]
        print(
            "REPLAY: OPENAI_API_KEY and MODEL are not set, so this replays the bundled "
            f"transcript {file.parent.relative_to(PROJECT_ROOT)} (recorded with provider "
            f"{header['provider']}, model {header['model']}). No model is called; every tool "
            "call and gate runs for real in a fresh sandbox."
        )
        return _finish(replay(file, home, say=print), home, None, "REPLAY ")
    run_id = args.run_id or new_run_id(args.task)
    out = Path(args.transcripts or PROJECT_ROOT / "transcripts") / run_id
    spec = RunSpec(
        run_id=run_id,
        task=args.task,
        params=params,
        model=model,
        base_url=os.environ.get("OPENAI_BASE_URL") or None,
        repo=str(Path(args.repo).resolve()),
        commit=args.commit,
        home=str(home),
        out=str(out),
        approve=args.approve,
        budget=_budget(args),
        retry={"attempts": args.retries} if args.retries else {},
        manual_stdin=args.manual_stdin,
    )
    return _finish(start(spec, api_key), home, api_key)


def _replay(args: argparse.Namespace) -> int:
    home = Path(args.home) if args.home else default_home()
    print(f"REPLAY of {args.transcript}: no model is called; tools and gates run for real.")
    return _finish(replay(Path(args.transcript), home, args.at_head), home, None, "REPLAY ")


def _resume(args: argparse.Namespace) -> int:
    home = Path(args.home) if args.home else default_home()
    api_key = os.environ.get("OPENAI_API_KEY")
    return _finish(resume(args.run_id, home, args.answer, api_key), home, api_key)


def _tasks(args: argparse.Namespace) -> int:
    for name in task_names():
        print(f"{name}: {load_task(name).description}")
    return 0


def _gates(args: argparse.Namespace) -> int:
    params = dict(_pair(p) for p in args.param)
    home = Path(args.home) if args.home else default_home()
    folder = home / new_run_id(f"gates-{Path(args.task).stem}")
    patch = Path(args.patch) if args.patch else None
    timed = check_gates(args.task, params, Path(args.repo), args.commit, patch, folder)
    print(f"sandbox and reports in {folder}")
    return 0 if all(result.passed for result, _ in timed) else 1


def _eval(args: argparse.Namespace) -> int:
    return run_sweep(args, _budget(args))


def _render(args: argparse.Namespace) -> int:
    print(render_transcript(Path(args.transcript)))
    return 0


def _finish(result: RunResult, home: Path, api_key: str | None, label: str = "") -> int:
    """Ask for approvals at a terminal; then say where everything is."""
    while result.status == "paused" and "question" in (result.pending or {}) and sys.stdin.isatty():
        print(result.pending["diff"])
        answer = input(f"{result.pending['question']} [yes / what to change]: ")
        result = resume(result.run_id, home, answer, api_key)
    where = f"transcript, report.md and patch.diff in {result.out}"
    print(f"{label}{result.status.upper()}: run {result.run_id}; {where}")
    if result.status == "paused":
        how = (
            "--answer yes" if "question" in (result.pending or {}) else "once the endpoint answers"
        )
        print(
            f"resume with `python -m agents resume {result.run_id} {how}` (make agent RESUME=...)"
        )
    return EXIT[result.status]


def _pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep:
        raise AgentError(f"--param {text!r}: write NAME=VALUE, e.g. --param BACKEND=c")
    return name, value


def _budget(args: argparse.Namespace) -> dict:
    given = {
        "max_steps": args.max_steps,
        "max_tokens": args.max_tokens,
        "max_dollars": args.max_dollars,
        "max_seconds": args.max_seconds,
        "price_input": args.price_input or os.environ.get("NTC_PRICE_INPUT"),
        "price_output": args.price_output or os.environ.get("NTC_PRICE_OUTPUT"),
    }
    return {key: value for key, value in given.items() if value is not None}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agents", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(required=True)
    run = commands.add_parser("run", help="run a task")
    run.add_argument("--task", required=True, help="a name in agents/tasks/ or a YAML file")
    run.add_argument("--param", action="append", default=[], help="NAME=VALUE, e.g. BACKEND=c")
    run.add_argument("--approve", action="store_true", help="ask a human before accepting")
    run.add_argument("--model", help="instead of $MODEL")
    run.add_argument("--manual-stdin", action="store_true", help="manual: answers on stdin")
    run.add_argument("--repo", default=str(PROJECT_ROOT), help="the checkout to clone")
    run.add_argument("--commit", default="HEAD", help="the commit to start from")
    run.add_argument("--run-id")
    run.add_argument("--transcripts", help="instead of transcripts/ of the checkout")
    _budget_arguments(run)
    run.add_argument("--retries", type=int, help="attempts per model call (default 5)")
    run.add_argument("--home", help="the runs folder (default $NTC_AGENT_HOME)")
    run.set_defaults(command=_run)
    again = commands.add_parser("replay", help="replay a transcript")
    again.add_argument("transcript")
    again.add_argument("--at-head", action="store_true", help="at HEAD, not the recorded commit")
    again.add_argument("--home")
    again.set_defaults(command=_replay)
    go_on = commands.add_parser("resume", help="resume a run from its checkpoint")
    go_on.add_argument("run_id")
    go_on.add_argument("--answer", help="the answer to a pending approval: yes, or why not")
    go_on.add_argument("--home")
    go_on.set_defaults(command=_resume)
    commands.add_parser("tasks", help="list the tasks").set_defaults(command=_tasks)
    gates = commands.add_parser("gates", help="a task's gates on a change, without a model")
    gates.add_argument("--task", required=True, help="a name in agents/tasks/ or a YAML file")
    gates.add_argument("--param", action="append", default=[], help="NAME=VALUE, e.g. OP=x.y")
    gates.add_argument("--patch", help="a diff to apply first (git apply); none: the tree as is")
    gates.add_argument("--repo", default=str(PROJECT_ROOT), help="the checkout to clone")
    gates.add_argument("--commit", default="HEAD", help="the commit to start from")
    gates.add_argument("--home", help="the runs folder (default $NTC_AGENT_HOME)")
    gates.set_defaults(command=_gates)
    render = commands.add_parser("render", help="render a transcript as Markdown")
    render.add_argument("transcript")
    render.set_defaults(command=_render)
    sweep = commands.add_parser("eval", help="skill evals, each with and without its skill")
    add_sweep_arguments(sweep)
    _budget_arguments(sweep)
    sweep.set_defaults(command=_eval)
    return parser


def _budget_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-steps", type=int)
    parser.add_argument("--max-tokens", type=int)
    parser.add_argument("--max-dollars", type=float)
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--price-input", type=float, help="dollars per million prompt tokens")
    parser.add_argument("--price-output", type=float, help="dollars per million completion tokens")
