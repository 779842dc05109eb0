"""An application as make() takes it: a function, or a `functools.partial` of one (NineToothed
takes both). What a partial binds is a constant of the program; the parameters left are the
ones the arrangement's tensors fill."""

from __future__ import annotations

import functools
import inspect


def unwrap(application) -> tuple[object, dict[str, object]]:
    """The function whose code the application is, and the values partials bind to its
    parameters, by name (an outer partial's over an inner one's, as calling them does)."""
    bound: dict[str, object] = {}
    while isinstance(application, functools.partial):
        names = list(inspect.signature(application.func).parameters)
        bound = {
            **dict(zip(names, application.args, strict=False)),
            **application.keywords,
            **bound,
        }
        application = application.func
    return application, bound


def parameters(application) -> list[str]:
    """The application's parameters no partial binds: one per arranged tensor, in order."""
    function, bound = unwrap(application)
    return [name for name in inspect.signature(function).parameters if name not in bound]
