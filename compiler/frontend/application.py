"""An application as make() takes it: a function, or a `functools.partial` of one (NineToothed
takes both). What a partial binds is a constant of the program; the parameters left are the
ones the arrangement's tensors fill; the kernel is named after the function."""

from __future__ import annotations

import functools
import inspect

from compiler.backends.registry import DEVICE_TARGETS


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


def default_kernel_name(application, backend: str) -> str:
    """The kernel's name when none is given: the application's, with `_kernel` added where the
    backend's language reserves it (a NineToothed application may be called `double`, a type in
    C); a name given explicitly is the caller's to choose, and refused there."""
    name = unwrap(application)[0].__name__
    reserved = [t.syntax.reserved for (b, _), t in DEVICE_TARGETS.items() if b == backend]
    while any(name in names for names in reserved):
        name += "_kernel"
    return name
