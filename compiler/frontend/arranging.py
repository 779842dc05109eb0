"""Running the arrangement: which source tensor each application parameter takes and how it is
arranged, paired as NineToothed pairs them (`arrange`)."""

from __future__ import annotations

import traceback
from pathlib import Path

from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError
from compiler.frontend.application import parameters, unwrap


def arrange(arrangement, application, entries: tuple) -> tuple[tuple, tuple]:
    """(source tensor, arranged tensor) per application parameter, as NineToothed pairs them: the
    arrangement takes every entry of `tensors` (values only it uses included) and its first
    results are the parameters'. Sources take the parameters' names where the arrangement lets
    them (so sizes read `input_size_0`): usually parameter i arranges entry i; otherwise the
    arrangement runs again with the entries it did use renamed."""
    names = parameters(application)
    application = unwrap(application)[0]  # named in errors
    renamed = _renamed(entries, dict(enumerate(names)))
    arranged = _results(_run(arrangement, renamed), application, len(names))
    used = [_entry_index(renamed, a.source) for a in arranged]
    if used != list(range(len(names))) and None not in used:
        if len(set(used)) != len(used):
            raise CompileError(
                f"the arrangement gives two parameters of {application.__qualname__} the same "
                "source tensor; give make() one Tensor per parameter"
            )
        renamed = _renamed(entries, dict(zip(used, names, strict=True)))
        arranged = _results(_run(arrangement, renamed), application, len(names))
    elif None in used:  # sources made before make() was called (jit's annotations): as they are
        for a, name in zip(arranged, names, strict=True):
            if _entry_index(entries, a.source) is None:
                raise CompileError(
                    f"the arrangement's result for parameter {name} arranges a tensor that was "
                    "not given to make(); arrange the Tensors of `tensors`"
                )
    return tuple(a.source for a in arranged), arranged


_COMPILER = str(Path(__file__).resolve().parents[1])


def _run(arrangement, entries: tuple) -> object:
    """The arrangement's results; a mistake in it (a tile of more dims than the tensor has, a
    size of 0, an error of its own) is a CompileError at its line in the user's file."""
    try:
        return arrangement(*entries)
    except (CompileError, ValueError, TypeError, IndexError) as error:
        located = isinstance(error, CompileError)
        place = None if located and error.filename else _user_line(error)
        if place is None:
            raise
        message = error.message if located else f"in the arrangement: {error}"
        raise CompileError(message, filename=place[0], line=place[1]) from error


def _user_line(error: BaseException) -> tuple[str, int] | None:
    """The innermost line of the traceback outside this compiler: the user's call that failed."""
    frames = traceback.extract_tb(error.__traceback__)
    outside = [f for f in frames[1:] if not str(Path(f.filename).resolve()).startswith(_COMPILER)]
    return (outside[-1].filename, outside[-1].lineno) if outside else None


def _renamed(entries: tuple, names: dict[int, str]) -> tuple:
    return tuple(
        e.with_name(names[k]) if k in names and isinstance(e, Tensor) else e
        for k, e in enumerate(entries)
    )


def _results(arranged: object, application, count: int) -> tuple:
    arranged = arranged if isinstance(arranged, tuple) else (arranged,)
    if len(arranged) < count or not all(isinstance(a, Tensor) for a in arranged[:count]):
        raise CompileError(
            f"the arrangement returned {arranged!r}, but {application.__qualname__} takes "
            f"{count} parameters; return one arranged Tensor per parameter, in order"
        )
    return arranged[:count]


def _entry_index(entries: tuple, source: Tensor) -> int | None:
    return next(
        (k for k, e in enumerate(entries) if isinstance(e, Tensor) and e.source is source), None
    )
