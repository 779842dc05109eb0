"""One worker's share of a backend's run (`Shard`), the pytest process that runs it, and the
counts of what the shards recorded; shared by local workers (`runner.py`) and Ray tasks
(`ray_shards.py`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from compiler.compat.corpus import PROJECT, Corpus


def test_files(corpus: Corpus) -> list[Path]:
    return sorted((corpus.root / "tests").glob("test_*.py"))


@dataclass(frozen=True)
class Shard:
    """One worker's share of a backend's run: every `count`-th test file from the `index`-th."""

    backend: str
    index: int
    count: int
    settings: tuple[tuple[str, str], ...]  # NTC_COMPAT_* values of the run (see plugin.py)


def start_shard(corpus: Corpus, shard: Shard, part: Path, skip: Path, only, log):
    """The pytest process of one shard, its records appended to `part`."""
    env = dict(os.environ)
    env.update(
        TRITON_INTERPRET="1",
        PYTHONPATH=os.pathsep.join([str(PROJECT), *map(str, corpus.import_paths)]),
        NTC_COMPAT_BACKEND=shard.backend,
        NTC_COMPAT_ROOTS=os.pathsep.join(map(str, corpus.import_paths)),
        NTC_COMPAT_RECORDS=str(part),
        NTC_COMPAT_SKIP=str(skip),
        NTC_COMPAT_SHARD=f"{shard.index}/{shard.count}",
        **{f"NTC_COMPAT_{name}": value for name, value in shard.settings},
    )
    if only is not None:
        env["NTC_COMPAT_ONLY"] = str(only)
    keyword = dict(shard.settings)["KEYWORD"]
    command = [sys.executable, "-m", "pytest", *map(str, test_files(corpus))]
    command += ["-p", "compiler.compat.plugin", "-q", "-p", "no:cacheprovider"]
    command += ["-p", "no:lowering_audit", "--continue-on-collection-errors"]  # recorded instead
    command += ["--rootdir", str(corpus.root), "-c", str(_pytest_config(corpus))]
    command += ["-k", keyword] if keyword else []
    return subprocess.Popen(command, cwd=corpus.root, env=env, stdout=log, stderr=log)


def _pytest_config(corpus: Corpus) -> Path:
    """The library's own pytest configuration, never one of a project it happens to sit in."""
    for name in ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
        if (corpus.root / name).is_file():
            return corpus.root / name
    return Path(os.devnull)


def record_counts(paths: list[Path]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if "collected" in record:
                counts["total"] = counts.get("total", 0) + record["collected"]
            else:
                if record.get("kind") == "import":  # a file that never got to its tests
                    counts["total"] = counts.get("total", 0) + 1
                counts["done"] = counts.get("done", 0) + 1
                counts[record["outcome"]] = counts.get(record["outcome"], 0) + 1
    return counts
