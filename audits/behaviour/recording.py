"""The kernels a test suite makes, recorded by running its tests: for corpora whose NineToothed
programs are written inside test functions (NineToothed's own suite), where no module-level
`arrangement`, `application` and `tensors` or library `premake` names them.

A test runs with `ninetoothed` bound to a recording stand-in of this compiler: `make` and `jit`
give back a recorder, which keeps the program it was given and, when called, the arguments, and
launches nothing; ahead-of-time builds are refused. The test goes on with what it gets until
something fails (its own checks at the latest: nothing ran), and every kernel it called until then
is recorded, in the order of their first calls. Its parameters are the first values of its
`pytest.mark.parametrize` marks; a test that needs any other fixture is not run. Modules run moved
to the CPU (`compiler.compat.on_cpu`) and are imported afresh each run, so a module-level cache of
kernels never hides a `make`. The compiler is imported inside functions only.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import random
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TIME_LIMIT = 60  # seconds a test may run while recording
# Where the `block_size()`s a recording run makes are numbered from: far from the compile's own
# numbering (from 0), so the two never share a name; the same in every run, renamed or not.
FIRST_BLOCK_SIZE = 1000
SEED = 0  # of `random`, NumPy's and torch's generators at the start of each run


@dataclass(frozen=True)
class TestFunction:
    module: str  # its module's dotted name, e.g. "tests.test_add"
    path: Path  # that module's file
    name: str
    arguments: dict = field(hash=False)  # parameter -> the first value its marks give
    parameters: tuple[str, ...] = ()  # in the order of its signature


@dataclass
class Recorded:
    """A kernel a test made and its first call."""

    program: tuple  # (arrangement, application, tensors)
    args: tuple
    kwargs: dict


@dataclass
class Run:
    """What a recording run of a test gave: the kernels it called, and why it stopped."""

    kernels: list[Recorded]
    stopped: str  # the exception that ended the test, "" if it ran to its end


@dataclass
class _Recorder:
    program: tuple
    made: list  # the run's recorders in the order of their first calls
    first_call: tuple | None = None  # (args, kwargs)

    def __call__(self, *args, **kwargs) -> None:
        if self.first_call is None:
            self.first_call = args, kwargs
            self.made.append(self)


class _Refused(Exception):
    """An ahead-of-time build, which recording does not make."""


def test_functions(package_folder: Path, package: str) -> tuple[list[TestFunction], list[str]]:
    """The tests of `package` (`test_*.py` files, `test*` functions) with their arguments, and why
    each other one cannot run. The package must be importable (`recording` binds it)."""
    found, skipped = [], []
    for path in sorted(package_folder.rglob("test_*.py")):
        parts = path.relative_to(package_folder).with_suffix("").parts
        module_name = ".".join([package, *parts])
        try:
            module = importlib.import_module(module_name)
        except Exception as error:  # a module that does not import here has no tests to record
            skipped.append(f"{module_name}: does not import ({type(error).__name__}: {error})")
            continue
        for name, function in vars(module).items():
            if not (name.startswith("test") and inspect.isfunction(function)):
                continue
            if function.__module__ != module_name:
                continue
            arguments, missing = _arguments(function)
            if missing:
                skipped.append(f"{module_name}::{name}: needs the fixture(s) {', '.join(missing)}")
            else:
                parameters = tuple(inspect.signature(function).parameters)
                found.append(TestFunction(module_name, path, name, arguments, parameters))
    return found, skipped


def _arguments(function: Callable) -> tuple[dict, list[str]]:
    """The first parametrization of each `parametrize` mark, and the parameters none gives."""
    arguments = {}
    for mark in getattr(function, "pytestmark", ()):
        if mark.name != "parametrize" or len(mark.args) < 2 or not mark.args[1]:
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        first = values[0]
        first = getattr(first, "values", first)  # a pytest.param
        first = first if len(names) > 1 else (first,)
        arguments.update(zip(names, first, strict=False))
    parameters = inspect.signature(function).parameters.values()
    empty = inspect.Parameter.empty
    missing = [p.name for p in parameters if p.name not in arguments and p.default is empty]
    return arguments, missing


@contextlib.contextmanager
def recording(roots: Sequence[Path], package: str) -> Iterator[list[_Recorder]]:
    """Inside: `roots` first on `sys.path`, their modules moved to the CPU and imported afresh
    (`package` too), `ninetoothed` bound to the recording stand-in; yields the run's recorders."""
    from compiler.cli.program import ninetoothed_for
    from compiler.compat import on_cpu
    from compiler.compat.library import library_imports
    from compiler.frontend.handle import jit_program

    made: list[_Recorder] = []
    stand_in = ninetoothed_for("triton")

    def make(arrangement, application, tensors, **options):
        if options.get("caller") or options.get("output_dir"):
            raise _Refused("an ahead-of-time make is not recorded")
        return _Recorder((arrangement, application, tuple(tensors)), made)

    def jit(func=None, **options):
        wrap = lambda application: _Recorder(jit_program(application), made)  # noqa: E731
        return wrap(func) if func is not None else wrap

    def refused(*args, **kwargs):
        raise _Refused("an ahead-of-time build is not recorded")

    stand_in.make, stand_in.jit, stand_in.build = make, jit, refused
    stand_in.aot.aot = refused
    finder = on_cpu.install(list(roots))
    try:
        with library_imports(roots, package, stand_in):
            yield made
    finally:
        sys.meta_path.remove(finder)


def record(
    roots: Sequence[Path],
    test: TestFunction,
    *,
    rename: Callable[[str], str] = lambda name: name,
    path: Path | None = None,
) -> Run:
    """Run `test` (its package under `roots`; its names mapped by `rename` when the package is a
    renamed copy; its module read from `path` when that is a rewritten copy) and give the kernels
    it called."""
    from compiler.compat import on_cpu
    from compiler.dsl.symbol import block_sizes_numbered_from

    module_name = _renamed_module(test.module, rename)
    numbered = block_sizes_numbered_from(FIRST_BLOCK_SIZE)
    with numbered, recording(roots, module_name.partition(".")[0]) as made:
        stopped = ""
        _seed()  # the same random sizes in every run of the test, renamed or not
        try:
            if path is None:
                module = importlib.import_module(module_name)
            else:
                importlib.import_module(module_name.rpartition(".")[0])
                module = on_cpu.load(module_name, path)
            function = getattr(module, rename(test.name))
            # By position: a renamed copy may keep a parameter's name (renaming.py).
            names = dict(zip(test.parameters, inspect.signature(function).parameters, strict=True))
            arguments = {names[name]: value for name, value in test.arguments.items()}
            with _time_limit(TIME_LIMIT):
                function(**arguments)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # its own checks at the latest (nothing ran), a skip
            stopped = f"{type(error).__name__}: {str(error)[:300]}"
    return Run([Recorded(r.program, *r.first_call) for r in made], stopped)


def _seed() -> None:
    import numpy
    import torch

    random.seed(SEED)
    numpy.random.seed(SEED)
    torch.manual_seed(SEED)


def _renamed_module(dotted: str, rename: Callable[[str], str]) -> str:
    return ".".join(rename(part) for part in dotted.split("."))


class _TimeUp(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Stop the test after `seconds` (in the main thread; elsewhere it runs to its end)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise _TimeUp(f"recording stopped after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
