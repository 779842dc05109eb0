"""What the behavioural audits compile: NineToothed programs with example arguments, and the
configurations users compile them in.

- `SuiteCase`: a program file of `compiler/suite/programs/` (module-level `arrangement`,
  `application`, `tensors`); the suite names its kernel.
- `LibraryCase`: a kernel module of a library (ntops) made by its own `premake(...)`, the library
  imported with `ninetoothed` bound to this compiler; the kernel is named after its application.

Configurations: `given` binds the block sizes the case gives (nothing left to schedule);
`scheduled` leaves them unbound, so `ssa.select_schedule` chooses; `candidates` compiles, block
sizes unbound, with the meta values of each schedule measured autotuning would time
(`tuning_candidates`). A case compiles from its own
files, from a renamed copy of its package (`renaming.py`), or from a rewritten copy of its
program file (`structure.py`). The compiler is imported inside functions only: the rest of
`audits` runs without it.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from audits.behaviour.renaming import Renamed, importable


@dataclass(frozen=True)
class Configuration:
    label: str  # where findings point: behaviour/<backend>/<kernel>/<label>
    binds_block_sizes: bool  # the case's block sizes bound into the arrangement
    schedule: tuple[tuple[str, int], ...] = ()  # meta values given at the call


GIVEN = Configuration("given", True)
SCHEDULED = Configuration("scheduled", False)
CONFIGURATIONS = ("given", "scheduled", "candidates")  # what a user may ask for
DEFAULT_CONFIGURATIONS = ("given", "scheduled")


@dataclass(frozen=True)
class Case:
    configurations: ClassVar[tuple[str, ...]] = CONFIGURATIONS  # those the case can be compiled in
    name: str  # where findings point: behaviour/<backend>/<name>/<configuration>
    path: Path  # the file holding the application (what a rewrite edits)
    folder: Path  # the package the renaming rewrites
    package: str  # its dotted name
    make_args: Callable[[], list]
    call_kwargs: Mapping[str, Any] = field(default_factory=dict)
    kernel_name: str | None = None  # None: the application's name

    def program(self, configuration: Configuration, renamed: Renamed | None) -> tuple:
        """(arrangement, application, tensors), from the renamed package when given."""
        raise NotImplementedError

    def companions(self) -> tuple[tuple[Path, str], ...]:
        """(folder, name) of top-level packages renamed with the case's own: none here."""
        return ()


@dataclass(frozen=True)
class SuiteCase(Case):
    arrangement_kwargs: Mapping[str, Any] = field(default_factory=dict)

    def program(self, configuration: Configuration, renamed: Renamed | None) -> tuple:
        import compiler.dsl
        from compiler.suite.loader import load_program

        name = renamed.name if renamed else (lambda old: old)
        path = renamed.file(self.path) if renamed else self.path
        module = load_program(path, compiler.dsl)
        arrangement = getattr(module, name("arrangement"))
        parameters = inspect.signature(arrangement).parameters
        bound = {
            name(key): value
            for key, value in self.arrangement_kwargs.items()
            if configuration.binds_block_sizes
            or not getattr(parameters[name(key)].default, "meta", 0)
        }
        if bound:
            arrangement = functools.update_wrapper(
                functools.partial(arrangement, **bound), arrangement
            )
        return arrangement, getattr(module, name("application")), getattr(module, name("tensors"))


@dataclass(frozen=True)
class LibraryCase(Case):
    import_paths: tuple[Path, ...] = ()
    module: str = ""  # the kernel's module, e.g. "ntops.kernels.add"
    premake_args: tuple = ()
    premake_kwargs: Mapping[str, Any] = field(default_factory=dict)

    def program(self, configuration: Configuration, renamed: Renamed | None) -> tuple:
        import compiler.dsl
        from compiler.compat.library import library_imports

        name = renamed.name if renamed else (lambda old: old)
        # ntops' convention: block sizes are the premake keywords named block_size*.
        kwargs = {
            name(key): value
            for key, value in self.premake_kwargs.items()
            if configuration.binds_block_sizes or not key.startswith("block_size")
        }
        paths = [renamed.directory] if renamed else list(self.import_paths)
        module_name = renamed.module(self.module) if renamed else self.module
        top = module_name.partition(".")[0]
        with library_imports(paths, top, compiler.dsl):
            if renamed is None and self.path != self._own_file():  # a rewritten copy
                importlib.import_module(module_name.rpartition(".")[0])
                module = _load(module_name, self.path)
            else:
                module = importlib.import_module(module_name)
            return getattr(module, name("premake"))(*self.premake_args, **kwargs)

    def _own_file(self) -> Path:
        return self.folder.joinpath(*self.module.split(".")[1:]).with_suffix(".py")


def _load(module_name: str, path: Path):
    """The module `module_name` executed from `path` (a rewritten copy may stand in)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def suite_cases(names: Iterable[str] | None = None) -> list[SuiteCase]:
    from compiler.suite import SUITE
    from compiler.suite.kernel import PROGRAMS_DIR
    from compiler.suite.loader import PROGRAMS_PACKAGE

    chosen = sorted(SUITE) if names is None else list(names)
    unknown = sorted(set(chosen) - set(SUITE))
    if unknown:
        raise KeyError(f"no suite kernel named {', '.join(unknown)}; known: {', '.join(SUITE)}")
    return [
        SuiteCase(
            name=name,
            path=SUITE[name].path,
            folder=PROGRAMS_DIR,
            package=PROGRAMS_PACKAGE,
            make_args=functools.partial(SUITE[name].make_args, 0),
            call_kwargs=dict(SUITE[name].call_kwargs),
            kernel_name=name,
            arrangement_kwargs=dict(SUITE[name].arrangement_kwargs),
        )
        for name in chosen
    ]


def knows_library(corpus: Path | str) -> bool:
    """Whether the corpus holds a library whose kernels `library_cases` makes (ntops)."""
    return bool(_library_folders(corpus))


def _library_folders(corpus: Path | str) -> list[Path]:
    from compiler.compat.corpus import prepare

    return [p / "ntops" for p in prepare(corpus).import_paths if (p / "ntops").is_dir()]


def library_cases(corpus: Path | str, names: Iterable[str] | None = None) -> list[LibraryCase]:
    """The corpus library's kernels that `compiler.compat.library_kernels` makes (ntops')."""
    from compiler.compat.corpus import prepare
    from compiler.compat.library_kernels import NTOPS_KERNELS

    prepared = prepare(corpus)
    known = {kernel.name: kernel for kernel in NTOPS_KERNELS}
    chosen = sorted(known) if names is None else list(names)
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise KeyError(f"no library kernel named {', '.join(unknown)}; known: {', '.join(known)}")
    folders = _library_folders(corpus)
    if not folders:
        raise KeyError(
            f"{corpus} holds no ntops package: the library kernels known here are ntops' "
            "(compiler/compat/library_kernels.py)"
        )
    folder = folders[0]
    cases = []
    for name in chosen:
        kernel = known[name]
        module = f"ntops.kernels.{kernel.module}"
        cases.append(
            LibraryCase(
                name=name,
                path=folder / "kernels" / f"{kernel.module}.py",
                folder=folder,
                package="ntops",
                make_args=kernel.make_args,
                import_paths=tuple(prepared.import_paths),
                module=module,
                premake_args=kernel.premake_args,
                premake_kwargs=dict(kernel.premake_kwargs),
            )
        )
    return cases


def compile_case(
    case: Case, backend: str, configuration: Configuration, renamed: Renamed | None = None
) -> Any:
    """The artifact of `case` for `backend` in `configuration`; from the renamed package when
    `renamed` is given (every name the authors chose mapped, the kernel's name included)."""
    import compiler.dsl
    from compiler.dsl.symbol import block_sizes_numbered_from

    name = renamed.name if renamed else (lambda old: old)
    # Generated block-size names count up process-wide: number each compile's the same.
    with block_sizes_numbered_from(0):
        if renamed is None:
            arrangement, application, tensors = case.program(configuration, None)
        else:
            with importable(renamed):
                arrangement, application, tensors = case.program(configuration, renamed)
        handle = compiler.dsl.make(arrangement, application, tensors, backend=backend)
        if case.kernel_name:
            handle.kernel_name = name(case.kernel_name)
        given = {**case.call_kwargs, **dict(configuration.schedule)}
        call_kwargs = {name(key): value for key, value in given.items()}
        return handle.compile(*case.make_args(), **call_kwargs)


def tuning_candidates(artifact, limit: int) -> list[Configuration]:
    """Up to `limit` of the schedules `ssa.select_schedule` would time for a `scheduled` artifact
    (its own choice left out), as configurations."""
    from compiler.backends.tuning_candidates import tuning_candidates as candidates

    chosen = dict(artifact.schedule)
    others = [candidate for candidate in candidates(artifact) if candidate != chosen][:limit]
    return [
        Configuration(
            "candidate " + ",".join(f"{k}={v}" for k, v in candidate.items()),
            False,
            tuple(candidate.items()),
        )
        for candidate in others
    ]
