"""Triton's own language inside an application: `import triton.language as tl`,
`from triton.language.extra import libdevice`, and names imported from them; and NineToothed's
own `ninetoothed.language` where a program imports it beside this compiler's `make` (it is
`ntl`, whose functions NineToothed only names in the Triton it writes).

NineToothed emits an application's code as Triton, so a program may call `tl.exp` or
`libdevice.pow` where it could call `ntl.exp`. Here each such module or object is read as the
`ninetoothed.language` name it stands for (the same attribute name in the matching namespace),
and the front end lowers that as it lowers `ntl`. Nothing of Triton is imported for this: only the
modules a program has already imported are looked at.

Triton's switch for run-time assertions (its `debug` option, `TRITON_DEBUG`) is the language's
too: read whatever the backend (`debug_requested`).

The functions Triton's standard library writes in its own language (`softmax`, `cumprod`,
`zeros_like`, ...: @jit functions, not builtins) are that language's too: `standard_function`
gives one's Python function, which the front end inlines as it inlines a @triton.jit helper.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

from compiler.dsl import language

PACKAGE = "triton.language"
NINETOOTHED = "ninetoothed.language"
DEBUG_VARIABLE = "TRITON_DEBUG"
_ON = ("1", "true", "on", "yes", "y")  # the spellings Triton takes as on


def debug_requested() -> bool:
    """Whether the program is compiled under Triton's `debug` option."""
    return os.environ.get(DEBUG_VARIABLE, "").strip().lower() in _ON


def as_language(obj: object) -> object:
    """The `ninetoothed.language` object `obj` stands for, or `obj` if it is not Triton's."""
    if isinstance(obj, ModuleType) and obj.__name__ == NINETOOTHED:
        return language
    if isinstance(obj, ModuleType) and _is_triton_language(obj.__name__):
        return _namespace(obj.__name__)
    if not _defined_by_triton(obj):
        return obj
    for name, module in list(sys.modules.items()):
        if module is None or not _is_triton_language(name):
            continue
        for attr, value in vars(module).items():
            if value is obj and not attr.startswith("_"):
                return getattr(_namespace(name), attr)
    return obj


def _is_triton_language(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".")


def _namespace(module_name: str) -> object:
    """`libdevice` modules are `ntl.libdevice`, `triton.language.math` is `ntl.math`, the rest
    (`triton.language`, its `core` and `standard`) `ntl` itself."""
    last = module_name.rsplit(".", 1)[-1]
    if last == "libdevice":
        return language.libdevice
    if last == "math":
        return language.math
    return language


def _defined_by_triton(obj: object) -> bool:
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return isinstance(module, str) and module.split(".")[0] == "triton"


def standard_function(name: str) -> object:
    """The Python function of the @jit function `triton.language.<name>` of Triton's standard
    library, or None: a builtin of Triton's, a name it lacks, or Triton not installed."""
    try:
        import triton.language
    except ImportError:
        return None
    function = getattr(getattr(triton.language, name, None), "fn", None)
    return function if callable(function) and hasattr(function, "__code__") else None
