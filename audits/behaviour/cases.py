"""What the behavioural audits compile: a NineToothed program file, its arguments, and the
configurations users compile it in.

A `Case` is one program with example arguments; `compile_case` compiles it for a backend in one
configuration, from its own file or from a renamed copy (`renaming.py`). Configurations:

- `given`: the block sizes the case binds into its arrangement (nothing left to schedule);
- `scheduled`: block-size parameters left unbound, so `ssa.select_schedule` chooses them.

The compiler is imported here only, inside functions: the rest of `audits` runs without it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audits.behaviour.renaming import Renamed, importable

CONFIGURATIONS = ("given", "scheduled")


@dataclass(frozen=True)
class Case:
    name: str  # the kernel's name, as its author gave it
    path: Path  # the program file (arrangement, application, tensors)
    make_args: Callable[[], list]
    arrangement_kwargs: Mapping[str, Any] = field(default_factory=dict)
    call_kwargs: Mapping[str, Any] = field(default_factory=dict)
    package: str = ""  # the package its sibling programs are imported from


def suite_cases(names: Iterable[str] | None = None) -> list[Case]:
    from compiler.suite import SUITE
    from compiler.suite.loader import PROGRAMS_PACKAGE

    chosen = sorted(SUITE) if names is None else list(names)
    unknown = sorted(set(chosen) - set(SUITE))
    if unknown:
        raise KeyError(f"no suite kernel named {', '.join(unknown)}; known: {', '.join(SUITE)}")
    return [
        Case(
            name=name,
            path=SUITE[name].path,
            make_args=functools.partial(SUITE[name].make_args, 0),
            arrangement_kwargs=dict(SUITE[name].arrangement_kwargs),
            call_kwargs=dict(SUITE[name].call_kwargs),
            package=PROGRAMS_PACKAGE,
        )
        for name in chosen
    ]


def compile_case(
    case: Case, backend: str, configuration: str, renamed: Renamed | None = None
) -> Any:
    """The artifact of `case` for `backend` in `configuration`; from the renamed copy when
    `renamed` is given (every name the author chose mapped, the kernel's name included)."""
    import compiler.dsl
    from compiler.dsl.symbol import block_sizes_numbered_from
    from compiler.suite.loader import load_program

    rename = (lambda name: renamed.mapping.get(name, name)) if renamed else (lambda name: name)
    # Generated block-size names count up process-wide: number each load's the same.
    with block_sizes_numbered_from(0):
        if renamed is None:
            module = load_program(case.path, compiler.dsl)
        else:
            with importable(renamed.directory):
                module = load_program(renamed.path, compiler.dsl)
    arrangement = getattr(module, rename("arrangement"))
    bound = _bound_kwargs(case, configuration, arrangement, rename)
    if bound:
        arrangement = functools.update_wrapper(functools.partial(arrangement, **bound), arrangement)
    application = getattr(module, rename("application"))
    tensors = getattr(module, rename("tensors"))
    handle = compiler.dsl.make(arrangement, application, tensors, backend=backend)
    handle.kernel_name = rename(case.name)
    call_kwargs = {rename(k): v for k, v in case.call_kwargs.items()}
    return handle.compile(*case.make_args(), **call_kwargs)


def _bound_kwargs(case: Case, configuration: str, arrangement, rename) -> dict:
    """The arrangement keywords a configuration binds (renamed): all of the case's, or those
    that are not block sizes (a parameter whose default is a meta symbol) when the schedule
    chooses."""
    if configuration not in CONFIGURATIONS:
        raise ValueError(f"unknown configuration {configuration!r}: {', '.join(CONFIGURATIONS)}")
    parameters = inspect.signature(arrangement).parameters
    return {
        rename(key): value
        for key, value in case.arrangement_kwargs.items()
        if configuration == "given" or not getattr(parameters[rename(key)].default, "meta", False)
    }
