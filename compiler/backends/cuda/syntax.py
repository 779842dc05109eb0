"""The layout of CUDA C++: typed declarations, braces, `extern "C" __global__` kernels."""

from __future__ import annotations

import json
import math

from compiler.backends.c_names import C_LIBRARY, C_RESERVED
from compiler.backends.syntax import Name, Syntax
from compiler.ir.memory_rules import ATOMIC_KINDS

# C++'s names, the C library's functions the shims declare (the kernel is a C function of its
# own name), those c_literal writes and the host entry's functions; the target adds every name
# its spellings use (a parameter named `exp` would hide the function).
_RESERVED = C_RESERVED | C_LIBRARY
_RESERVED |= {"ntc_launch", "ntc_error", "ntc_call", "ntc_run_grid", "ntc_bitcast"}
_RESERVED |= {f"ntc_atomic_{kind}" for kind in ATOMIC_KINDS} | {"ntc_atomic_word"}


def c_literal(value: object) -> str:
    """A number as C++ writes it; its declaration or cast gives it the value's type."""
    if isinstance(value, Name):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}LL"
    if isinstance(value, float):
        if math.isnan(value):
            return "NAN"
        if math.isinf(value):
            return "INFINITY" if value > 0 else "-INFINITY"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a C string literal (attributes such as scope; not spelled)
    if isinstance(value, list | tuple):
        return "{" + ", ".join(c_literal(v) for v in value) + "}"  # a shape, as an initializer
    raise TypeError(f"attribute value {value!r} has no CUDA C++ spelling")


CUDA_SYNTAX = Syntax(
    prelude=(),  # headers come with -include: the shim on the CPU, the CUDA ones for nvcc
    comment="// {text}",
    kernel_open=('extern "C" __global__ void {name}({params}) {{',),
    to_value="",
    indent="  ",
    define="{type} {name} = {expr};",  # not const: loop-carried variables are re-assigned
    assign="{name} = {expr};",
    statement="{expr}",  # the spellings of statements carry their own `;`
    for_open="for ({type} {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{",
    while_open="while ({cond}) {{",
    if_open="if ({cond}) {{",
    else_open="} else {",
    empty_block=";",
    literal=c_literal,
    reserved=_RESERVED,
    block_close="}",
    buffer_param="{dtype}* __restrict__ {name}",
    scalar_param="{dtype} {name}",
)
