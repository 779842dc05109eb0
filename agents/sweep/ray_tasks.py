"""Units as Ray tasks: `python -m agents eval --ray ADDRESS` (a cluster), `--ray auto` (the cluster
this machine belongs to, e.g. inside `ray job submit`) or `--ray local` (a Ray instance on this
machine). Ray comes from PyPI as the optional extra `ray`.

Each task makes its own sandbox from the sweep's commit: the driver packs the commit into a git
bundle, puts it into Ray's object store once, and a task clones it into its node's cache
(`$NTC_AGENT_HOME/sources/<commit>`) the first time that node needs it. The nodes need this
project's Python environment; the code travels with the job (this command ships the checkout as
the job's `working_dir` when it connects to a cluster itself).
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

EXCLUDES = [".git", ".venv", ".venv-tvm", "evals/results", "**/__pycache__", "*.egg-info"]


def _ray():
    try:
        import ray
    except ImportError:
        raise AgentError(
            "--ray needs Ray: pip install -e '.[ray]' (or pip install ray) in this environment"
        ) from None
    return ray


class RayTasks:
    name = "ray"

    def __init__(
        self, address: str, api_key: str | None, keep: bool, commit: str, local_cpus: int = 2
    ):
        ray = _ray()
        self.ray = ray
        self.started = not ray.is_initialized()  # a caller's Ray instance stays the caller's
        if self.started and address == "local":
            ray.init(num_cpus=local_cpus, include_dashboard=False, log_to_driver=False)
        elif self.started:
            env = {"working_dir": str(PROJECT_ROOT), "excludes": EXCLUDES}
            ray.init(address=address, runtime_env=env, log_to_driver=False)
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
        ready, _ = self.ray.wait(handles, num_returns=1)
        try:
            return ready[0], self.ray.get(ready[0])
        except Exception as error:  # the task raised, or its worker or node was lost
            return ready[0], error

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
