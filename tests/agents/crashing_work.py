"""Work for `Workers` whose process dies the first time it runs the unit named "crash". A module
of its own, so that the spawned workers import nothing else."""

from __future__ import annotations

import os
from pathlib import Path


def crash_once(unit: tuple[str, str], source: str, api_key, keep) -> dict:
    folder, name = unit
    marker = Path(folder) / name
    if name == "crash" and not marker.exists():
        marker.touch()
        os._exit(3)
    return {"record": name}
