"""The `pytest` gate's progress (`-p ntc_agent_progress --progress-file PATH`): one JSON line
per test as it starts and as it finishes, appended and closed at once, so that a run killed by
its time limit still says which test was running and how long the finished ones took
(`agents/gates/test_progress.py` reads it).

Loaded from this folder, which the gate puts on the import path after the sandbox.
"""

from __future__ import annotations

import json
import time


def pytest_addoption(parser) -> None:
    parser.addoption("--progress-file", metavar="PATH", help="append each test's start and end")


def pytest_configure(config) -> None:
    path = config.getoption("progress_file")
    if path:
        config.pluginmanager.register(ProgressFile(path), "ntc_agent_progress_file")


class ProgressFile:
    def __init__(self, path: str):
        self.path = path

    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        self._append({"start": nodeid, "at": time.time()})

    def pytest_runtest_logfinish(self, nodeid: str, location) -> None:
        self._append({"finish": nodeid, "at": time.time()})

    def _append(self, event: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as file:
            file.write(json.dumps(event) + "\n")
