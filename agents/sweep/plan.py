"""What a sweep runs: for every selected skill eval, model and repeat, one run with the skill in
the catalog and one with it withheld (the two arms). A unit carries everything its run needs, so
it runs the same way in a local worker process and in a Ray task on another machine.

Eval cases, their planted files and the skills' command tables are read from the sweep's commit,
like the sandboxes, never from the working tree.
"""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agents.commands import sandbox_command
from agents.errors import AgentError
from skills.evals import load_cases, project_commands, skill_dirs

ARMS = ("with", "without")
GATE_KINDS = ("ruff", "audit", "traces")  # the gate kinds that take no arguments
DEFAULT_GATES = ("ruff", "audit")


@dataclass(frozen=True)
class Eval:
    skill: str
    case: dict
    setup: dict[str, str]  # path in the tree -> the content planted there
    commands: dict[str, str]  # project.md key -> the command as grading runs it in a sandbox

    @property
    def id(self) -> str:
        return self.case["id"]

    def task(self, arm: str, gates: tuple[str, ...], budget: dict) -> dict:
        """The task (as `agents/tasks/` YAML data; the unit adds `setup`). The arms differ only
        in the catalog: `withhold` takes the skill out of the sandbox and `activate_skill`."""
        planted = set(self.case.get("setup", {}).values())  # shown where they are planted
        starts = [*self.setup, *(f for f in self.case.get("files", []) if f not in planted)]
        prompt = self.case["prompt"]
        if starts:
            prompt += f"\n\nFiles to start from: {', '.join(starts)}."
        return {
            "description": f"skill eval {self.skill}/{self.id}, {arm} the skill",
            "prompt": prompt,
            "withhold": [self.skill] if arm == "without" else [],
            "gates": [{"kind": kind} for kind in gates],
            "budget": budget,
        }


@dataclass(frozen=True)
class Model:
    name: str  # as the results show it
    base_url: str | None = None  # None: $OPENAI_BASE_URL, else OpenAI's
    scripted_root: str | None = None  # the scripted model's server, when it is that

    def endpoint(self, seed: int) -> dict:
        if self.scripted_root:
            return {"model": self.name, "base_url": f"{self.scripted_root}/seed/{seed}/v1"}
        return {"model": self.name, "base_url": self.base_url}


@dataclass(frozen=True)
class Unit:
    key: str  # skill/eval/model/arm/repeat: what resuming a sweep matches on
    run_id: str
    skill: str
    eval_id: str
    model: str
    arm: str
    repeat: int
    commit: str
    task: dict
    setup: dict[str, str]
    case: dict
    commands: dict[str, str]
    endpoint: dict  # {"model", "base_url"}, or {"replay": the gzipped transcript to answer from}

    def identity(self) -> dict:
        """What every record of this unit starts with."""
        return {
            "key": self.key,
            "skill": self.skill,
            "eval": self.eval_id,
            "model": self.model,
            "arm": self.arm,
            "repeat": self.repeat,
            "run_id": self.run_id,
        }


def parse_model(text: str) -> Model:
    """`NAME` or `NAME@BASE_URL`."""
    name, _, url = text.partition("@")
    if not name:
        raise AgentError(f"--model {text!r}: write NAME or NAME@BASE_URL")
    if name.startswith(("manual", "replay:")):
        raise AgentError(
            f"--model {text!r}: a sweep needs a model endpoint (a person cannot answer hundreds "
            "of runs); replay a recorded sweep with --replay evals/results/<sweep>"
        )
    return Model(name, url or None)


def read_evals(
    repo: Path, commit: str, skills: list[str], ids: list[str], commands: dict[str, str]
) -> list[Eval]:
    """The selected eval cases at `commit` (every skill's, every case, when none is named);
    `commands` replaces project.md commands by key for grading."""
    overrides = {key: sandbox_command(command) for key, command in commands.items()}
    with skills_at(repo, commit) as root:
        found = {path.name: path for path in skill_dirs(root)}
        unknown = sorted(set(skills) - set(found))
        if unknown:
            raise AgentError(f"no skill {unknown} at {commit[:12]}; skills: {', '.join(found)}")
        evals = []
        for name in skills or list(found):
            table = {k: sandbox_command(v) for k, v in project_commands(found[name]).items()}
            for case in load_cases(found[name]):
                if ids and case["id"] not in ids:
                    continue
                setup = {
                    target: (found[name] / source).read_text(encoding="utf-8")
                    for target, source in case.get("setup", {}).items()
                }
                evals.append(Eval(name, case, setup, table | overrides))
    missing = sorted(set(ids) - {e.id for e in evals})
    if missing:
        raise AgentError(f"no eval {missing} in the selected skills; `python -m skills.evals list`")
    if not evals:
        raise AgentError("the selection holds no eval case")
    return evals


def plan(
    evals: list[Eval],
    models: list[Model],
    repeat: int,
    commit: str,
    gates: tuple[str, ...],
    budget: dict,
) -> list[Unit]:
    """Every unit, ordered so that the first results cover every eval, arm and model."""
    units = []
    for index in range(repeat):
        for model in models:
            for ev in evals:
                for arm in ARMS:
                    units.append(
                        Unit(
                            key=f"{ev.skill}/{ev.id}/{model.name}/{arm}/{index}",
                            run_id=slug(f"{ev.skill}.{ev.id}.{model.name}.{arm}.{index}"),
                            skill=ev.skill,
                            eval_id=ev.id,
                            model=model.name,
                            arm=arm,
                            repeat=index,
                            commit=commit,
                            task=ev.task(arm, gates, budget),
                            setup=ev.setup,
                            case=ev.case,
                            commands=ev.commands,
                            endpoint=model.endpoint(index),
                        )
                    )
    return units


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


@contextmanager
def skills_at(repo: Path, commit: str) -> Iterator[Path]:
    """The `skills/` folder of `commit`, unpacked into a temporary folder."""
    done = subprocess.run(["git", "archive", commit, "skills"], cwd=repo, capture_output=True)
    if done.returncode != 0:
        raise AgentError(f"git archive {commit} skills in {repo}: {done.stderr.decode().strip()}")
    with tempfile.TemporaryDirectory(prefix="ntc-sweep-skills-") as folder:
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
            archive.extractall(folder, filter="data")
        yield Path(folder) / "skills"
