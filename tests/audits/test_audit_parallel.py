"""The audit's rules run on forked children: the same findings as in one process, in order,
and a child's failure reported with its traceback."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from audits import parallel
from audits.config import load_config
from audits.engine import audit_project


def _with_pid(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


def _one(item: int) -> int:
    return 1


def test_results_come_back_in_order_from_several_processes(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 3)
    items = list(range(40))
    results = parallel.map_forked(_with_pid, items, weight=lambda item: item % 7 + 1)
    assert [value for value, _ in results] == [item * item for item in items]
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) == 3


def test_one_core_runs_here(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 1)
    assert {pid for _, pid in parallel.map_forked(_with_pid, [1, 2, 3], _one)} == {os.getpid()}


def test_a_failing_child_is_reported_with_its_traceback(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    parent = os.getpid()

    def work(item: int) -> int:
        if os.getpid() != parent:
            raise ValueError(f"item {item} broke in the child")
        return item

    with pytest.raises(parallel.ChildFailed, match=r"(?s)Traceback.*ValueError: item \d+ broke"):
        parallel.map_forked(work, list(range(10)), _one)


def test_shares_balance_by_weight():
    shares = parallel._shares(list(range(10)), weight=lambda item: item + 1, count=2)
    loads = [sum(item + 1 for _, item in share) for share in shares]
    assert sorted(index for share in shares for index, _ in share) == list(range(10))
    assert abs(loads[0] - loads[1]) <= 1


def test_findings_are_the_same_on_one_core_and_on_several(project: Path, monkeypatch):
    (project / "minicc" / "fused.py").write_text("def lower_flash_attention(kernel): ...\n")
    (project / "minicc" / "picked.py").write_text(
        'def pick(op):\n    return op.name == "soft" + "max"\n'
    )
    config = load_config(project / "pyproject.toml")
    assert threading.active_count() == 1  # so that 2 and 3 cores do fork
    reports = {}
    for count in (1, 2, 3):
        monkeypatch.setattr(parallel, "cores", lambda count=count: count)
        reports[count] = audit_project(config)
    assert len(reports[1].findings) >= 2
    assert reports[1].findings == reports[2].findings == reports[3].findings
    assert reports[1].suppressed == reports[2].suppressed == reports[3].suppressed


def test_no_fork_while_other_threads_run(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    release = threading.Event()
    waiting = threading.Thread(target=release.wait)
    waiting.start()
    try:
        results = parallel.map_forked(_with_pid, [1, 2, 3], _one)
    finally:
        release.set()
        waiting.join()
    assert {pid for _, pid in results} == {os.getpid()}
