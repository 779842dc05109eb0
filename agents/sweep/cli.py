"""`python -m agents eval` (what `make eval` runs): does a skill help? Every selected skill eval
runs through the workflow with the skill in the catalog and with it withheld, for each model and
`--repeat` times, in worker processes or as Ray tasks; each run is graded with the eval's
expectations; `evals/results/<sweep>/` gets the records, a table per skill and a plot.

Without a model (`--model` or `MODEL`), the sweep runs against the scripted model on a local
server this command starts, and says so everywhere: a demonstration, not a measurement.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from contextlib import ExitStack
from pathlib import Path

from agents.errors import AgentError
from agents.providers import check_model
from agents.run import PROJECT_ROOT, _resolve
from agents.sweep.execute import Workers, run_all
from agents.sweep.plan import DEFAULT_GATES, GATE_KINDS, Model, parse_model, plan, read_evals, slug
from agents.sweep.plot import plot
from agents.sweep.scripted import NAME as SCRIPTED
from agents.sweep.scripted import SKILL as SCRIPTED_SKILL
from agents.sweep.scripted import ScriptedModel
from agents.sweep.server import LocalChatServer
from agents.sweep.store import Results
from agents.sweep.summary import render
from agents.transcript import FILE_NAME

RESULTS = PROJECT_ROOT / "evals" / "results"
SUMMARY, PLOT = "summary.md", "pass_rates.png"
# What the scripted sweep runs unless told otherwise: a few minutes on two cores. Its `test`
# expectation runs the pass registry's tests, not the whole suite; the summary says so.
QUICK_TESTS = "tests/passes/test_registry.py"
SCRIPTED_DEFAULTS = {
    "skill": [SCRIPTED_SKILL],
    "eval": ["fix-planted-fast-path"],
    "repeat": 4,
    "grade_commands": ["test={bin}/python -m pytest -q -p no:cacheprovider " + QUICK_TESTS],
    "max_steps": 12,
}


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--sweep",
        help="the results folder's name (default: models and commit; same options resume a sweep)",
    )
    add("--results", default=str(RESULTS), help="where sweep folders go (evals/results)")
    add("--skill", action="append", help="a skill to evaluate (default: every skill)")
    add("--eval", action="append", help="an eval case id (default: every case of the skills)")
    add(
        "--model",
        action="append",
        help="NAME or NAME@BASE_URL, repeatable (default: $MODEL, else the scripted model)",
    )
    add("--repeat", type=int, help="runs per eval, model and arm (default 3; scripted 4)")
    add("--workers", type=int, default=2, help="worker processes on this machine (default 2)")
    add("--ray", metavar="ADDRESS", help="run as Ray tasks: a cluster's address, auto or local")
    add("--commit", default="HEAD", help="the commit every sandbox starts from")
    kinds = ", ".join(GATE_KINDS)
    add("--gates", default=",".join(DEFAULT_GATES), help=f"comma-separated, of {kinds}")
    add(
        "--command",
        action="append",
        dest="grade_commands",
        metavar="KEY=COMMAND",
        help="KEY=COMMAND: grade a project.md command key with "
        "COMMAND ({bin}: the folder of this Python)",
    )
    add(
        "--scripted-rates",
        default="1,0.25",
        help="the scripted model's right-way fractions "
        "with the skill active and without (default 1,0.25)",
    )
    add("--replay", metavar="SWEEP", help="replay a recorded sweep's runs from their transcripts")
    add("--keep-sandboxes", action="store_true", help="keep each run's folder")


def run_sweep(args: argparse.Namespace, budget: dict, say=print) -> int:
    """The sweep the options describe: run what is missing, then write the tables and plot."""
    if args.replay:
        return _replay(args, say)
    names = args.model or [m for m in [os.environ.get("MODEL")] if m]
    scripted = not names or names == [SCRIPTED]
    if scripted:
        _scripted_defaults(args, budget)
        say(
            "SCRIPTED: no model given (--model or MODEL), so the runs talk to the scripted model "
            "(agents/sweep/scripted.py) on a local server: it shows the sweep working, and its "
            "numbers say nothing about any real model."
        )
    api_key = "scripted-local" if scripted else os.environ.get("OPENAI_API_KEY")
    models = [Model(SCRIPTED)] if scripted else [parse_model(n) for n in names]
    for model in models:
        check_model(model.name, api_key)
    commit = _resolve(PROJECT_ROOT, args.commit)
    config = _config(args, commit, budget, scripted)
    evals = read_evals(PROJECT_ROOT, commit, args.skill or [], args.eval or [], _commands(args))
    name = args.sweep or slug("+".join(m.name for m in models) + "-" + commit[:10])
    results = Results.open(Path(args.results) / name, config, _models(models, scripted))
    with ExitStack() as stack:
        backend = _backend(args, api_key, commit, stack)
        if scripted:
            model = ScriptedModel(tuple(config["scripted_rates"]))
            server = stack.enter_context(LocalChatServer(model.answer, _host(backend)))
            models = [dataclasses.replace(models[0], scripted_root=server.root)]
        units = plan(evals, models, args.repeat or 3, commit, config["gates"], budget)
        return _execute(backend, units, results, say)


def _replay(args: argparse.Namespace, say) -> int:
    """Run a recorded sweep's runs again, each answered from its transcript, with the recorded
    commit, gates, budget and grading (the first `--repeat` repeats, or all); then compare the
    verdicts with the recorded ones."""
    recorded = Results.read(Path(args.replay))
    config = recorded.manifest["config"]
    records = {
        key: record
        for key, record in recorded.finished().items()
        if args.repeat is None or record["repeat"] < args.repeat
    }
    if not records:
        raise AgentError(f"{recorded.folder} holds no finished run to replay")
    say(
        f"REPLAY of sweep {recorded.folder.name}: the models' answers come from the recorded "
        "transcripts; tools, gates and grading run again for real."
    )
    skills = sorted({r["skill"] for r in records.values()})
    ids = sorted({r["eval"] for r in records.values()})
    evals = read_evals(PROJECT_ROOT, config["commit"], skills, ids, config["commands"])
    models = [Model(name) for name in sorted({r["model"] for r in records.values()})]
    repeat = 1 + max((r["repeat"] for r in records.values()), default=-1)
    units = [
        dataclasses.replace(
            unit,
            endpoint={
                "replay": recorded.artifact(records[unit.key], f"{FILE_NAME}.gz").read_bytes()
            },
        )
        for unit in plan(evals, models, repeat, config["commit"], config["gates"], config["budget"])
        if unit.key in records
    ]
    name = args.sweep or f"{recorded.folder.name}-replay"
    results = Results.open(Path(args.results) / name, config, recorded.manifest["models"])
    with ExitStack() as stack:
        backend = _backend(args, None, config["commit"], stack)
        status = _execute(backend, units, results, say)
    return max(status, _compare(records, results.finished(), say))


def _execute(backend, units, results: Results, say) -> int:
    done = results.finished()
    todo = [unit for unit in units if unit.key not in done]
    say(
        f"sweep {results.folder.name}: {len(units)} runs, {len(units) - len(todo)} recorded "
        f"before; {len(todo)} to run on {backend.name}; results in {results.folder}"
    )
    failed, started = 0, time.monotonic()
    for count, (unit, value, attempts) in enumerate(run_all(backend, todo), 1):
        if isinstance(value, Exception):
            failed += 1
            record = _failure(unit, value, attempts)
            results.add(record, {})
        else:
            record = value["record"] | {"attempts": attempts, "executor": backend.name}
            results.add(record, value["artifacts"])
        left = (time.monotonic() - started) / count * (len(todo) - count)
        say(f"[{count}/{len(todo)}] {_line(record)}; about {left:.0f} s left")
    records = list(results.records().values())
    scripted = any(spec["scripted"] for spec in results.manifest["models"].values())
    title = f"Skill evals: sweep {results.folder.name}" + (" (SCRIPTED MODEL)" if scripted else "")
    summary = render(results.folder.name, results.manifest, records)
    (results.folder / SUMMARY).write_text(summary, encoding="utf-8")
    plot(title, records, results.folder / PLOT)
    say(summary)
    say(f"tables in {results.folder / SUMMARY}, plot in {results.folder / PLOT}")
    if failed:
        say(f"{failed} runs failed twice; run the same command again to retry them")
    return 1 if failed else 0


def _compare(recorded: dict, replayed: dict, say) -> int:
    """Whether the replay graded every run as the recording did."""
    differ = [
        key
        for key, record in recorded.items()
        if key not in replayed or _verdict(replayed[key]) != _verdict(record)
    ]
    say(
        f"replay agrees with the recorded sweep on {len(recorded) - len(differ)} of "
        f"{len(recorded)} runs" + (f"; differs on {', '.join(differ)}" if differ else "")
    )
    return 1 if differ else 0


def _verdict(record: dict) -> tuple:
    grades = tuple((g["text"], g["status"]) for g in record["grades"])
    return record["outcome"], record["passed"], grades, record["calls"]


def _line(record: dict) -> str:
    where = f"{record['skill']}/{record['eval']} {record['model']} {record['arm']}"
    where += f" #{record['repeat']}"
    if record["outcome"] == "error":
        return f"{where}: ERROR after {record['attempts']} attempts: {record['error'][-300:]}"
    checked = [g for g in record["grades"] if g["status"] != "judge"]
    failing = sum(g["status"] == "fail" for g in checked)
    verdict = "PASS" if record["passed"] else f"FAIL ({failing} of {len(checked)} checks)"
    return (
        f"{where}: {verdict}; run {record['outcome']}, {record['calls']} calls, "
        f"{record['tokens']:,} tokens, {record['wall_seconds']:.0f} s"
    )


def _failure(unit, error: Exception, attempts: int) -> dict:
    return unit.identity() | {
        "outcome": "error",
        "error": f"{type(error).__name__}: {error}"[-2000:],
        "attempts": attempts,
    }


def _backend(args, api_key: str | None, commit: str, stack: ExitStack):
    if args.ray:
        from agents.sweep.ray_tasks import RayTasks

        backend = RayTasks(args.ray, api_key, args.keep_sandboxes, commit, args.workers)
    else:
        backend = Workers(args.workers, api_key, args.keep_sandboxes)
    stack.callback(backend.close)
    return backend


def _host(backend) -> str:
    """Where the scripted model's server listens: reachable from wherever the runs happen."""
    return getattr(backend, "host", "127.0.0.1")


def _scripted_defaults(args: argparse.Namespace, budget: dict) -> None:
    for option, value in SCRIPTED_DEFAULTS.items():
        if option == "max_steps":
            budget.setdefault("max_steps", value)
        elif getattr(args, option) is None:
            setattr(args, option, value)


def _commands(args: argparse.Namespace) -> dict[str, str]:
    commands = {}
    for text in args.grade_commands or []:
        key, sep, command = text.partition("=")
        if not sep or not key or not command:
            raise AgentError(f"--command {text!r}: write KEY=COMMAND, e.g. test='make test'")
        commands[key] = command
    return commands


def _config(args, commit: str, budget: dict, scripted: bool) -> dict:
    gates = tuple(kind for kind in args.gates.split(",") if kind)
    unknown = sorted(set(gates) - set(GATE_KINDS))
    if unknown:
        raise AgentError(f"--gates {args.gates}: {unknown} unknown; kinds: {', '.join(GATE_KINDS)}")
    rates = None
    if scripted:
        try:
            rates = [float(x) for x in args.scripted_rates.split(",")]
        except ValueError:
            rates = []
        if len(rates) != 2 or not all(0 <= r <= 1 for r in rates):
            raise AgentError(
                f"--scripted-rates {args.scripted_rates}: write two fractions, e.g. 1,0.25"
            )
    return {
        "commit": commit,
        "gates": list(gates),
        "budget": budget,
        "commands": _commands(args),
        "scripted_rates": rates,
    }


def _models(models: list[Model], scripted: bool) -> dict[str, dict]:
    return {m.name: {"base_url": m.base_url, "scripted": scripted} for m in models}
