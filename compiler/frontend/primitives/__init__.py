"""The `ntl` primitives an application may call, each a composition of registered IR ops.

Every primitive takes Triton's own parameter names and defaults (`ntl.sum(x, axis=0,
keep_dims=True)`, `ntl.dot(a, b, input_precision="ieee")`), so code written for NineToothed calls
them unchanged. None is a kernel: each lowers to generic ops (`math.*`, `reduce.*`, `linalg.dot`,
`select.where`, `tile.*`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.primitives import (
    along_axis,
    combining,
    compile_time,
    dot,
    elementwise,
    libdevice,
    memory,
    norms,
    pairs,
    random,
    shapes,
    transcendental,
)

PRIMITIVES: dict[str, Callable] = {
    **elementwise.PRIMITIVES,
    **transcendental.PRIMITIVES,
    **norms.PRIMITIVES,
    **libdevice.PRIMITIVES,
    **shapes.PRIMITIVES,
    **along_axis.PRIMITIVES,
    **dot.PRIMITIVES,
    **random.PRIMITIVES,
    **memory.PRIMITIVES,
    **pairs.PRIMITIVES,
    **compile_time.PRIMITIVES,
    **combining.PRIMITIVES,
}


def call_primitive(
    arith: Arith, name: str, args: list, kwargs: dict, written: str | None = None
) -> object:
    """Lower `ntl.<name>(*args, **kwargs)`; wrong arguments name the primitive's signature.
    `written`: how the program spells the function (`libdevice.hypot`), for the messages."""
    lower = PRIMITIVES.get(name)
    written = written or f"ntl.{name}"
    if lower is None:
        raise CompileError(
            f"{written} is not supported by this compiler yet; write it with the primitives it "
            f"has ({', '.join(sorted(PRIMITIVES))})"
        )
    signature = inspect.signature(lower)
    try:
        signature.bind(arith, *args, **kwargs)
    except TypeError as error:
        shown = str(signature).replace("(arith: 'Arith', ", "(", 1).replace("'", "")
        raise CompileError(f"{written}{shown}: {error}") from None
    return lower(arith, *args, **kwargs)
