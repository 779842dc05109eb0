"""The pytest plugin a compatibility run loads (`-p compiler.compat.plugin`).

The runner sets it up through the environment, because the binding and the CPU hook must be in
place before pytest imports the corpus's conftest:

- `NTC_COMPAT_BACKEND`  a backend of this compiler, or `reference` for NineToothed itself
- `NTC_COMPAT_ROOTS`    the corpus's import paths (os.pathsep-separated), which the CPU hook covers
- `NTC_COMPAT_RECORDS`  the JSON-lines file each test's outcome is appended to
- `NTC_COMPAT_TIMEOUT`  seconds one test may take (0: no limit)
- `NTC_COMPAT_SAMPLE`   keep this many tests per test file, evenly spread (0: all)
- `NTC_COMPAT_SKIP`     a JSON-lines file of outcomes already recorded: those tests are not rerun
- `NTC_COMPAT_ONLY`     a file of test ids, one per line: run only those (unset: every test)
- `NTC_COMPAT_SHARD`    `i/k`: run the tests of every k-th test file from the i-th (default 0/1)
- `NTC_COMPAT_KEYWORD`, `NTC_COMPAT_FAILED_ON`, `NTC_COMPAT_COMMIT`  recorded with the run (its -k,
  the backends whose failures it reruns, this project's commit)
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import warnings
from pathlib import Path

import pytest

from compiler.compat import on_cpu
from compiler.compat.corpus import REFERENCE
from compiler.errors import CompileError
from compiler.runtime.overlap import OverlapWarning

# What the compiler warned of during each test (a race it saw at a launch), by test id.
_warned: dict[str, str] = {}


class TestTimeout(Exception):
    """A test ran past the run's per-test time limit."""


def _setting(name: str, default: str = "") -> str:
    return os.environ.get(f"NTC_COMPAT_{name}", default)


_KEPT: list = []


def _bind() -> None:
    roots = [Path(p) for p in _setting("ROOTS").split(os.pathsep) if p]
    sys.path[:0] = [str(r) for r in roots]
    on_cpu.install(roots)
    backend = _setting("BACKEND", "triton")
    if backend == REFERENCE:
        from compiler.suite.reference_ninetoothed import cpu_driver

        _KEPT.append(cpu_driver())  # for the whole run (kept: collecting it would restore Triton)
        _KEPT[-1].__enter__()
        return
    from compiler.cli.program import ninetoothed_for
    from compiler.suite.loader import bound_modules

    sys.modules.update(bound_modules(ninetoothed_for(backend)))


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Bind before pytest imports the corpus's conftest (which imports the library); only in a run
    the compatibility runner started, never in a process that merely imports this module."""
    if _setting("BACKEND"):
        _bind()


def _records() -> Path | None:
    path = _setting("RECORDS")
    return Path(path) if path else None


def _write(record: dict) -> None:
    path = _records()
    if path is not None:
        with path.open("a") as f:
            f.write(json.dumps(record) + "\n")


def _already_done() -> set[str]:
    path = _setting("SKIP")
    if not path or not Path(path).exists():
        return set()
    done = set()
    for line in Path(path).read_text().splitlines():
        record = json.loads(line)
        if "nodeid" in record:
            done.add(record["nodeid"])
    return done


def _wanted() -> set[str] | None:
    path = _setting("ONLY")
    return set(Path(path).read_text().split()) if path else None


def _spread(items: list, keep: int) -> list:
    """`keep` items evenly spread over `items`, first and last included."""
    if keep <= 0 or len(items) <= keep:
        return items
    if keep == 1:
        return items[:1]
    return [items[round(i * (len(items) - 1) / (keep - 1))] for i in range(keep)]


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected
def pytest_collection_modifyitems(config, items):
    done = _already_done()
    by_file: dict[str, list] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::")[0], []).append(item)
    keep = int(_setting("SAMPLE", "0"))
    index, count = map(int, _setting("SHARD", "0/1").split("/"))
    shard = list(by_file.values())[index::count]
    chosen = [item for group in shard for item in _spread(group, keep)]
    wanted = _wanted()
    chosen = [
        item
        for item in chosen
        if item.nodeid not in done and (wanted is None or item.nodeid in wanted)
    ]
    deselected = [item for item in items if item not in set(chosen)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = chosen
    run = {
        k.lower(): _setting(k)
        for k in ("BACKEND", "SAMPLE", "TIMEOUT", "KEYWORD", "FAILED_ON", "COMMIT")
    }
    _write({"collected": len(items), **run})


def pytest_collectreport(report):
    """A test file that does not import (a module the binding lacks) is one failed record, written
    by the first worker only (every worker collects every file), and only in a run that selects
    whole files: with -k or a list of test ids nothing says the file was wanted."""
    if not report.failed or not _setting("SHARD", "0/1").startswith("0/"):
        return
    if _setting("KEYWORD") or report.nodeid in _already_done():
        return
    wanted = _wanted()
    if wanted is not None and report.nodeid not in wanted:
        return
    lines = [line for line in str(report.longrepr).splitlines() if line.startswith("E ")]
    message = lines[-1][1:].strip() if lines else str(report.longrepr).strip()[-300:]
    _write({"nodeid": report.nodeid, "outcome": "failed", "kind": "import", "message": message})


def _on_alarm(signum, frame):
    raise TestTimeout(f"took longer than the {_setting('TIMEOUT')} s limit of this run")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = float(_setting("TIMEOUT", "0"))
    if limit > 0:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", OverlapWarning)
            yield
        ours = [w for w in caught if issubclass(w.category, OverlapWarning)]
        if ours:
            _warned[item.nodeid] = f"{ours[0].category.__name__}: {ours[0].message}"[:300]
    finally:
        if limit > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _kind(excinfo) -> str:
    """What went wrong: the compiler refused, the answer was wrong, time ran out, or it broke."""
    if any(isinstance(e, TestTimeout) for e in _chain(excinfo.value)):
        return "timeout"  # also when a library wraps it (Triton's interpreter does)
    if excinfo.errisinstance(CompileError):
        return "refused"
    if excinfo.errisinstance(AssertionError) and _raised_in_test(excinfo):
        return "mismatch"
    return "crash"


def _chain(error: BaseException):
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__


def _raised_in_test(excinfo) -> bool:
    """An assertion of the test itself (a comparison with torch), not one inside the library."""
    last = excinfo.traceback[-1]
    return Path(str(last.path)).name.startswith("test_")


def _message(excinfo) -> str:
    """The error's first line; for a bare `assert False` also the line that says what was false."""
    lines = [line.strip() for line in str(excinfo.value).strip().splitlines() if line.strip()]
    shown = " / ".join(lines[:2]) if lines and lines[0] == "assert False" else "".join(lines[:1])
    return f"{excinfo.typename}: {shown}"[:300]


_started: dict[str, float] = {}


def pytest_runtest_logstart(nodeid, location):
    _started[nodeid] = time.perf_counter()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    failed_setup = report.when == "setup" and report.outcome != "passed"
    if report.when != "call" and not failed_setup:
        return
    record = {"nodeid": item.nodeid, "outcome": report.outcome}
    if report.outcome == "skipped":
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        record["message"] = str(reason)[:300]
    elif report.outcome == "failed" and call.excinfo is not None:
        record.update(kind=_kind(call.excinfo), message=_message(call.excinfo))
    if item.nodeid in _warned:
        record["warned"] = _warned.pop(item.nodeid)
    record["seconds"] = round(
        time.perf_counter() - _started.get(item.nodeid, time.perf_counter()), 3
    )
    _write(record)
