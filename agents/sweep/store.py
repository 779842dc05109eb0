"""A sweep's results folder, `evals/results/<sweep>/` by default:

sweep.json      what the runs mean: commit, gates, budget, grading commands, the scripted
                model's rates (`config`, which a resumed sweep must match), and every model
                with its endpoint and whether it is the scripted one
runs.jsonl      one record per run, appended as each finishes; the last record of a key counts
                and a failed run (`outcome` "error") is run again when the sweep resumes
runs/<run-id>/  the run's patch.diff, report.md and transcript.jsonl.gz
summary.md      the tables, pass_rates.png the plot (agents/sweep/summary.py, plot.py)
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from agents.errors import AgentError

MANIFEST = "sweep.json"
RECORDS = "runs.jsonl"
RUNS = "runs"


class Results:
    def __init__(self, folder: Path, manifest: dict):
        self.folder = folder
        self.manifest = manifest

    @classmethod
    def open(cls, folder: Path, config: dict, models: dict[str, dict]) -> Results:
        """The folder for a sweep with `config`: made, or resumed when its config matches."""
        path = folder / MANIFEST
        if path.is_file():
            manifest = json.loads(path.read_text(encoding="utf-8"))
            old = manifest["config"]
            differing = sorted(k for k in old.keys() | config.keys() if old.get(k) != config.get(k))
            if differing:
                raise AgentError(
                    f"{folder} holds a sweep whose {', '.join(differing)} differ from these "
                    f"options ({', '.join(f'{k}={old.get(k)!r}' for k in differing)}); give "
                    "the same options to resume it, or another --sweep name"
                )
            clash = [n for n in models if manifest["models"].get(n, models[n]) != models[n]]
            if clash:
                raise AgentError(f"{folder}: models {clash} were run with other endpoints")
            manifest["models"] |= models
        else:
            folder.mkdir(parents=True, exist_ok=True)
            manifest = {"config": config, "models": models, "created": time.strftime("%F %T")}
        path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        return cls(folder, manifest)

    @classmethod
    def read(cls, folder: Path) -> Results:
        path = folder / MANIFEST
        if not path.is_file():
            raise AgentError(f"{folder} holds no sweep ({MANIFEST} is missing)")
        return cls(folder, json.loads(path.read_text(encoding="utf-8")))

    def records(self) -> dict[str, dict]:
        """The last record of every key; a line cut short by a crash is skipped."""
        path = self.folder / RECORDS
        latest = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                latest[record["key"]] = record
        return latest

    def finished(self) -> dict[str, dict]:
        return {k: r for k, r in self.records().items() if r["outcome"] != "error"}

    def add(self, record: dict, artifacts: dict[str, bytes]) -> None:
        """The artifacts first, then the record: a record names a complete run."""
        folder = self.folder / RUNS / record["run_id"]
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in artifacts.items():
            (folder / name).write_bytes(data)
        path = self.folder / RECORDS
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with path.open("a+", encoding="utf-8") as file:
            if file.tell():  # after a line cut short by a crash, start a new one
                file.seek(file.tell() - 1)
                line = ("" if file.read(1) == "\n" else "\n") + line
            file.write(line)
            file.flush()
            os.fsync(file.fileno())

    def artifact(self, record: dict, name: str) -> Path:
        return self.folder / RUNS / record["run_id"] / name
