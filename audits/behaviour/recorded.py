"""Cases from a corpus's tests: each kernel a test makes and calls (`recording.py`) is a case.

A case's original program is the one its discovery run recorded; the renamed program is recorded
again by running the same test from the renamed copy of the tests package and of the corpus's own
packages beside it (its library: a kernel the tests call may be defined there), and a rewritten
one by running it from the rewritten file. Block sizes are as the test gives them (`given`: those
it leaves open are the schedule's), and each schedule autotuning would time for those left open
(`candidates`); `scheduled` would repeat `given`. Case names are `<module>::<test>`, with `#<n>`
for the n-th kernel (from 0) where a test calls more than one; `--kernel` takes a case name, a
test (`<module>::<test>`) or a module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from audits.behaviour.cases import Case, Configuration
from audits.behaviour.recording import Run, TestFunction, record, recording, test_functions
from audits.behaviour.renaming import Renamed

PACKAGE = "tests"


@dataclass(frozen=True)
class RecordedCase(Case):
    configurations: ClassVar[tuple[str, ...]] = ("given", "candidates")
    test: TestFunction | None = None
    position: int = 0  # which of the kernels the test calls, in the order of first calls
    import_paths: tuple[Path, ...] = ()
    recorded: tuple = ()  # (arrangement, application, tensors) as the discovery run made them
    libraries: tuple[tuple[Path, str], ...] = ()  # the corpus's packages beside its tests

    def companions(self) -> tuple[tuple[Path, str], ...]:
        """The corpus's library is renamed with its tests: a kernel it defines is renamed too."""
        return self.libraries

    def program(self, configuration: Configuration, renamed: Renamed | None) -> tuple:
        rewritten = self.path != self.test.path
        if renamed is None and not rewritten:
            return self.recorded
        roots = (renamed.directory, *self.import_paths) if renamed else self.import_paths
        run = _run(roots, self.test, renamed, self.path if rewritten else None)
        if self.position >= len(run.kernels):
            which = "renamed" if renamed else "rewritten"
            raise RuntimeError(
                f"the {which} test called {len(run.kernels)} kernel(s), the original at least "
                f"{self.position + 1}; it stopped at {run.stopped or 'its end'}"
            )
        return run.kernels[self.position].program


_RUNS: dict[tuple, Run] = {}


def _run(roots, test, renamed: Renamed | None, path: Path | None) -> Run:
    """The test's kernels from the renamed or rewritten copy, run once per copy (each backend's
    compile asks again)."""
    key = (tuple(roots), test, path)
    if key not in _RUNS:
        rename = renamed.name if renamed else (lambda name: name)
        _RUNS[key] = record(roots, test, rename=rename, path=path)
    return _RUNS[key]


def recorded_cases(
    corpus: Path | str,
    names: Iterable[str] | None = None,
    note: Callable[[str], None] = lambda text: None,
) -> list[RecordedCase]:
    """A case for each kernel the corpus's tests call; `note(text)` hears each test not run."""
    from compiler.compat.corpus import prepare

    prepared = prepare(corpus)
    folder, roots = prepared.root / PACKAGE, tuple(prepared.import_paths)
    libraries = tuple(
        (child, child.name)
        for root in roots
        for child in sorted(root.iterdir())
        if child.name != PACKAGE and (child / "__init__.py").is_file()
    )
    with recording(roots, PACKAGE):
        found, skipped = test_functions(folder, PACKAGE)
    for why in skipped:
        note(f"not run: {why}")
    cases = []
    for test in found:
        for position, kernel in enumerate(record(roots, test).kernels):
            name = f"{test.module.removeprefix(PACKAGE + '.')}::{test.name}"
            cases.append(
                RecordedCase(
                    name=name + (f"#{position}" if position else ""),
                    path=test.path,
                    folder=folder,
                    package=PACKAGE,
                    make_args=lambda args=kernel.args: list(args),
                    call_kwargs=dict(kernel.kwargs),
                    test=test,
                    position=position,
                    import_paths=roots,
                    recorded=kernel.program,
                    libraries=libraries,
                )
            )
    return _selected(cases, names)


def _selected(cases: list[RecordedCase], names: Iterable[str] | None) -> list[RecordedCase]:
    if names is None:
        return cases
    names = list(names)

    def keys(case: RecordedCase) -> set[str]:
        test = case.name.partition("#")[0]
        return {case.name, test, test.partition("::")[0]}

    unknown = sorted(set(names) - set().union(*map(keys, cases)))
    if unknown:
        known = ", ".join(case.name for case in cases)
        raise KeyError(f"no recorded kernel named {', '.join(unknown)}; known: {known}")
    return [case for case in cases if keys(case) & set(names)]
