"""The `pytest` gate's selection (`-p ntc_agent_select --select-id PATTERN ...`): only the tests
with a parametrize id that matches a pattern as a whole (fnmatch: `c` is `c`, never `cuda`) run.
An id of several parameters (`c-matmul`) matches when one of its parts does. A test without
parameters is never selected, unless its file is kept whole (`--keep-file PATH`, relative to the
root) or the test itself (`--keep-test PATH::FUNCTION`, every parametrization and class of it):
the `affected` selection's, `agents/gates/affected.py`. Markers are pytest's own `-m`.

Loaded from this folder, which the gate puts on the import path after the sandbox: the workflow's
own copy, whatever the sandbox's commit holds.
"""

from __future__ import annotations

import fnmatch


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--select-id",
        action="append",
        default=[],
        metavar="PATTERN",
        help="keep the tests with a parametrize id (or a part of one) matching PATTERN",
    )
    parser.addoption(
        "--keep-file",
        action="append",
        default=[],
        metavar="PATH",
        help="keep every test of the file PATH (relative to the root), whatever its ids",
    )
    parser.addoption(
        "--keep-test",
        action="append",
        default=[],
        metavar="PATH::FUNCTION",
        help="keep the test FUNCTION of PATH, every parametrization of it",
    )


def pytest_collection_modifyitems(config, items: list) -> None:
    patterns = config.getoption("select_id")
    files = set(config.getoption("keep_file")) | set(config.getoption("keep_test"))
    if not patterns and not files:
        return
    kept = [item for item in items if _kept(item, patterns, files)]
    dropped = [item for item in items if not _kept(item, patterns, files)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _kept(item, patterns: list[str], kept: set[str]) -> bool:
    """`kept`: files, and `file::function` of single tests."""
    path = item.nodeid.split("::")[0]
    function = f"{path}::{getattr(item, 'originalname', item.name)}"
    return path in kept or function in kept or _selected(item, patterns)


def _selected(item, patterns: list[str]) -> bool:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    names = [callspec.id, *callspec.id.split("-")]
    return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)
