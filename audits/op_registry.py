"""The op names of the project's closed IR registry (`registry = "package.module:OPS"`).

The registry is imported in a child process: the audit never runs the code it audits in its own
process, so that code cannot change what the audit checks.
"""

from __future__ import annotations

import json
import subprocess
import sys

from audits.config import AuditConfig

_LOADER = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
module, _, attribute = sys.argv[2].partition(":")
registry = getattr(importlib.import_module(module), attribute or "OPS")
names = [entry if isinstance(entry, str) else entry.name for entry in registry]
print(json.dumps(sorted(names)))
"""
TIMEOUT_SECONDS = 60


def load_registry_ops(config: AuditConfig) -> tuple[frozenset[str] | None, str | None]:
    """(op names, None), or (None, why not) when the registry cannot be read."""
    if not config.registry:
        return None, None
    command = [sys.executable, "-c", _LOADER, str(config.root), config.registry]
    try:
        done = subprocess.run(
            command, cwd=config.root, capture_output=True, text=True, timeout=TIMEOUT_SECONDS
        )
        names = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
        return None, _unreadable(config, str(error))
    if not isinstance(names, list):
        last_line = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, _unreadable(config, last_line)
    return frozenset(names), None


def _unreadable(config: AuditConfig, why: str) -> str:
    return (
        f"registry {config.registry} could not be read ({why}); "
        "op names are checked against the vocabulary only"
    )
