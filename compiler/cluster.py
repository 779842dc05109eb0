"""A Ray connection for work that fans out as tasks: the skill-eval sweep
(`python -m agents eval --ray`) and the compatibility runner (`python -m compiler.compat --ray`).

`address` is a cluster's (`ray://host:10001` or `host:6379`), `auto` (the cluster this machine
belongs to, e.g. inside `ray job submit`) or `local` (a Ray instance started here with
`local_cpus`). Connecting to a cluster ships this checkout as the job's `working_dir`, so the
nodes run this code; they need this project's Python environment. Ray comes from PyPI as the
optional extra `ray`.
"""

from __future__ import annotations

from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
EXCLUDES = [".git", ".venv", ".venv-tvm", "evals/results", "**/__pycache__", "*.egg-info"]


class RayUnavailable(RuntimeError):
    """Ray is not installed in this environment."""


def ray_module():
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "--ray needs Ray: pip install -e '.[ray]' (or pip install ray) in this environment"
        ) from None
    return ray


def connect(address: str, local_cpus: int = 2) -> bool:
    """Connect (or start, for `local`); True if this call started Ray, so it should shut it down
    (a caller's own Ray instance stays the caller's)."""
    ray = ray_module()
    if ray.is_initialized():
        return False
    if address == "local":
        ray.init(num_cpus=local_cpus, include_dashboard=False, log_to_driver=False)
    else:
        env = {"working_dir": str(PROJECT), "excludes": EXCLUDES}
        ray.init(address=address, runtime_env=env, log_to_driver=False)
    return True


def next_done(handles: list) -> tuple[object, object]:
    """The first finished of `handles` and its result, or the exception it ended with (the task
    raised, or its worker or node was lost)."""
    ray = ray_module()
    ready, _ = ray.wait(handles, num_returns=1)
    try:
        return ready[0], ray.get(ready[0])
    except Exception as error:
        return ready[0], error
