"""How a backend lays out statements: the part of a language that is not an op's spelling.

Every field is a format string (or, for literals, a small function), so the shared emitter never
asks which language it writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Syntax:
    prelude: tuple[str, ...]  # lines before the kernel (imports)
    comment: str  # "{text}" -> one comment line
    kernel_open: tuple[str, ...]  # lines that open the kernel; fields: name, params
    # Makes a host number (scalar argument, loop index) a value of its IR dtype; fields: name,
    # dtype (spelled); or "".
    to_value: str
    indent: str
    define: str  # a value's first definition; fields: name, expr
    assign: str  # re-assignment of a loop-carried or branch-result variable; fields: name, expr
    statement: str  # an op without results; field: expr
    for_open: str  # fields: iv, lb, ub, step
    while_open: str  # field: cond (a variable the loop re-assigns before each check)
    if_open: str  # field: cond
    else_open: str
    empty_block: str  # the body of a block with nothing in it
    literal: Callable[[object], str]  # an attribute value (number, bool, list, ...)
    reserved: frozenset[str]  # names a value may not take
    # Languages with typed declarations and braces (every field below has a neutral default).
    # `define`, `assign` and `for_open` also receive `type`: the value's (or index's) spelled dtype.
    block_close: str = ""  # closes a loop, branch, region or the kernel ("}" in C)
    buffer_param: str = "{name}"  # a global buffer parameter; fields: name, dtype
    scalar_param: str = "{name}"  # a number parameter; fields: name, dtype
    param_prologue: tuple[str, ...] = ()  # lines per buffer parameter after the kernel opens
    grid_open: str = ""  # scf.grid; fields: pid, count, num_warps (the kernel's attribute)
    grid_define: str = ""  # a definition inside scf.grid, where it differs from `define`
    grid_reference: str = ""  # how a value `grid_define` defined is read, where not by its name
    # Inside scf.grid, a pure value of at most this many ops (those of the plain definitions it
    # reads included, values the same in every program not) is a plain definition still: a
    # program's box bases (`pid * 128`), which the language's analysis then reads through.
    grid_plain_ops: int = 0
    # Inside scf.grid, a float zero is stored like other values, not a plain definition: the
    # language's simplifier would apply integer algebra to it (TVM's turns `x * 0.0` into 0 and
    # `x + 0.0` into x, wrong for NaN, infinities and -0.0).
    grid_stored_float_zeros: bool = False
    parallel_open: str = ""  # scf.parallel; fields: iv, extent
    # An scf.parallel over a tile's elements (its `shape`) as a nest of the tile's dims; fields:
    # ivs, extents (comma-separated, outermost first). The flat position is then defined from
    # them (row-major). Empty: `parallel_open` over the flat extent.
    parallel_nest_open: str = ""
    # An scf.for with `stages` (ssa.pipeline_loops); fields: iv, lb, ub, stages. Inside, values
    # are plain definitions (`define`): a pipeliner assigns statements to stages, and a definition
    # stored in a variable would tie them together. Empty: such loops stay plain loops.
    pipelined_for_open: str = ""
    # A compile-time parameter (a size the kernel is specialised on at launch, kept symbolic in
    # its tile shapes); field: name. Empty: the language has none.
    constexpr_param: str = ""


class Name(str):
    """A name to write as it is where a literal is expected: a tile dim that is a compile-time
    parameter (`tl.arange(0, q_size_3)`)."""
