"""Units as Ray tasks: `python -m agents eval --ray ADDRESS` (a cluster), `--ray auto` (the cluster
this machine belongs to, e.g. inside `ray job submit`) or `--ray local` (a Ray instance on this
machine). Ray comes from PyPI as the optional extra `ray`.

Each task makes its own sandbox from the sweep's commit: the driver packs the commit into a git
bundle, puts it into Ray's object store once, and a task clones it into its node's cache
(`$NTC_AGENT_HOME/sources/<commit>`) the first time that node needs it. The nodes need this
project's Python environment; the code travels with the job (this command ships the checkout as
the job's `working_dir` when it connects to a cluster itself: `compiler/cluster.py`, shared with the
compatibility runner).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agents.errors import AgentError
from agents.run import PROJECT_ROOT, default_home
from agents.sandbox import _git
from agents.sweep.plan import Unit
from agents.sweep.unit import run_unit
from compiler import cluster


class RayTasks:
    name = "ray"

    def __init__(
        self, address: str, api_key: str | None, keep: bool, commit: str, local_cpus: int = 2
    ):
        try:
            self.started = cluster.connect(address, local_cpus)
        except cluster.RayUnavailable as error:
            raise AgentError(str(error)) from None
        ray = self.ray = cluster.ray_module()
        self.api_key = api_key
        self.keep = keep
        self.bundle = ray.put(bundle(PROJECT_ROOT, commit))
        self.task = ray.remote(num_cpus=1, max_retries=0)(_ray_unit)

    @property
    def host(self) -> str:
        """This machine's address as the cluster's nodes reach it."""
        return self.ray.util.get_node_ip_address()

    def submit(self, unit: Unit):
        return self.task.remote(unit, self.bundle, self.api_key, self.keep)

    def next_done(self, handles: list) -> tuple[object, dict | BaseException]:
        return cluster.next_done(handles)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()


def _ray_unit(unit: Unit, packed: bytes, api_key: str | None, keep: bool) -> dict:
    return run_unit(unit, str(unpack(packed, unit.commit)), api_key, keep)


def bundle(repo: Path, commit: str) -> bytes:
    """`commit` and its history as a git bundle (one ref, `refs/heads/sweep`)."""
    with tempfile.TemporaryDirectory(prefix="ntc-sweep-bundle-") as folder:
        bare, file = Path(folder) / "repo.git", Path(folder) / "sweep.bundle"
        _git(Path(folder), "clone", "--quiet", "--bare", "--no-hardlinks", str(repo), str(bare))
        _git(bare, "update-ref", "refs/heads/sweep", commit)
        _git(bare, "bundle", "create", "--quiet", str(file), "refs/heads/sweep")
        return file.read_bytes()


def unpack(packed: bytes, commit: str) -> Path:
    """A bare repository holding `commit` on this node, made from the bundle once per node."""
    cache = default_home() / "sources"
    target = cache / commit
    if target.is_dir():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as folder:
        file, bare = Path(folder) / "sweep.bundle", Path(folder) / "repo.git"
        file.write_bytes(packed)
        _git(Path(folder), "clone", "--quiet", "--bare", str(file), str(bare))
        try:
            os.rename(bare, target)  # atomic: a task sees no half-made repository
        except OSError:
            pass  # another task on this node was first
    return target
