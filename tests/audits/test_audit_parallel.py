"""The audit shares its files out over forked processes: the same findings as in one process,
in order, with every process's summary and the common value, and a child's failure reported
with its traceback."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import libcst as cst
import pytest

from audits import parallel
from audits.config import load_config
from audits.engine import audit_project
from audits.evaluation import ProjectBindings


def _sum_of_share(share) -> int:
    return sum(item for _, item in share)


def _squares_with_pid(share, summaries, common) -> list:
    return [(item * item, os.getpid(), sorted(summaries), common) for _, item in share]


def _one(item: int) -> int:
    return 1


def _run(count: int, monkeypatch, items, then=_squares_with_pid, first=_sum_of_share):
    monkeypatch.setattr(parallel, "cores", lambda: count)
    return parallel.run_shared(items, lambda item: item % 7 + 1, first, then, lambda: "common")


def test_results_come_back_in_order_with_every_summary(monkeypatch):
    items = list(range(40))
    results, common = _run(3, monkeypatch, items)
    assert common == "common"
    assert [value for value, *_ in results] == [item * item for item in items]
    pids = {pid for _, pid, _, _ in results}
    assert os.getpid() in pids and len(pids) == 3
    summaries = {tuple(summary) for *_, summary, _ in results}
    assert len(summaries) == 1 and sum(next(iter(summaries))) == sum(items)
    assert {shared for *_, shared in results} == {"common"}


def test_one_core_runs_here(monkeypatch):
    results, _ = _run(1, monkeypatch, [1, 2, 3])
    assert {pid for _, pid, _, _ in results} == {os.getpid()}


@pytest.mark.parametrize("phase", ["first", "then"])
def test_a_failing_child_is_reported_with_its_traceback(monkeypatch, phase):
    parent = os.getpid()

    def broken(share, *rest):
        if os.getpid() != parent:
            raise ValueError(f"share of {len(share)} broke in the child")
        return _sum_of_share(share) if not rest else _squares_with_pid(share, *rest)

    kwargs = {phase: broken}
    with pytest.raises(parallel.ChildFailed, match=r"(?s)Traceback.*ValueError: share of \d+"):
        _run(2, monkeypatch, list(range(10)), **kwargs)


def test_shares_balance_by_weight_and_keep_the_items_order():
    shares = parallel._shares(list(range(10)), weight=lambda item: item + 1, count=2)
    loads = [sum(item + 1 for _, item in share) for share in shares]
    assert sorted(index for share in shares for index, _ in share) == list(range(10))
    assert abs(loads[0] - loads[1]) <= 1
    assert all(
        [index for index, _ in share] == sorted(index for index, _ in share) for share in shares
    )


def test_no_fork_while_other_threads_run(monkeypatch):
    release = threading.Event()
    waiting = threading.Thread(target=release.wait)
    waiting.start()
    try:
        results, _ = _run(2, monkeypatch, [1, 2, 3])
    finally:
        release.set()
        waiting.join()
    assert {pid for _, pid, _, _ in results} == {os.getpid()}


def test_findings_are_the_same_on_one_core_and_on_several(project: Path, monkeypatch):
    """Constants built in one file and used in another resolve wherever each file was parsed."""
    (project / "minicc" / "fused.py").write_text("def lower_flash_attention(kernel): ...\n")
    (project / "minicc" / "names.py").write_text('SOFT = "soft"\nKIND = SOFT + "max"\n')
    (project / "minicc" / "picked.py").write_text(
        "from minicc.names import KIND\n\n\ndef pick(op):\n    return op.name == KIND\n"
    )
    config = load_config(project / "pyproject.toml")
    assert threading.active_count() == 1  # so that 2 and 3 cores do fork
    reports = {}
    for count in (1, 2, 3):
        monkeypatch.setattr(parallel, "cores", lambda count=count: count)
        reports[count] = audit_project(config)
    built = [f for f in reports[1].findings if f.path == "minicc/picked.py"]
    assert built and "built at minicc/names.py:2" in built[0].message
    assert reports[1].findings == reports[2].findings == reports[3].findings
    assert reports[1].suppressed == reports[2].suppressed == reports[3].suppressed


def test_a_module_parsed_elsewhere_is_parsed_here_when_a_name_it_binds_is_looked_up():
    texts = {"b.py": 'KIND = "x"\n', "a.py": 'KIND = "y"\n'}
    loaded = []
    project = ProjectBindings(
        load=lambda path: loaded.append(path) or cst.parse_module(texts[path])
    )
    project.add("c.py", cst.parse_module('KIND = "z"\nOTHER = 1\n'))
    project.expect("b.py", {"KIND"})
    project.expect("a.py", {"KIND"})
    assert [owner.path for owner, _ in project.named("OTHER")] == ["c.py"] and not loaded
    assert [owner.path for owner, _ in project.named("KIND")] == ["a.py", "b.py", "c.py"]
    assert sorted(loaded) == ["a.py", "b.py"]
    project.named("KIND")
    assert len(loaded) == 2
