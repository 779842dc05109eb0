"""The one emitter every value-semantics backend shares: IR in, source text out.

Each op becomes one line, `name = <spelling>` (or a bare statement when it has no result), spelled
from the target's table. Structured control flow keeps its structure: `scf.for` becomes a loop
whose loop-carried values are variables re-assigned at the end of the body, `scf.while` a loop
on a variable its condition's ops set before the loop and again at the end of the body, `scf.if`
a two-way branch that assigns its results in both arms. All layout comes from `target.syntax`.
"""

from __future__ import annotations

import hashlib

from compiler.backends.naming import Namer
from compiler.backends.syntax import Name
from compiler.backends.target import OpText, Target, Unspellable, spelled
from compiler.ir.core import Block, Kernel, Operation, Value
from compiler.ir.invariants import launch_invariants
from compiler.ir.memory_rules import BOX_SCALARS, split_box
from compiler.ir.printer import print_kernel
from compiler.ir.registry import lookup
from compiler.ir.types import ArrayType, BufferType, is_float

STRUCTURED_OPS = frozenset({"scf.for", "scf.while", "scf.if", "scf.yield"})
REGION_OPS = {"scf.grid": "grid_open", "scf.parallel": "parallel_open"}  # op -> Syntax field


class EmitError(Exception):
    """IR the target cannot spell; names the op, the target and what to do instead."""


def ssa_sha256(ssa_text: str) -> str:
    return hashlib.sha256(ssa_text.encode()).hexdigest()


def emit(kernel: Kernel, target: Target, *, ssa: str | None = None) -> str:
    """The kernel's source in the target's language, headed by the hash of its SSA text (`ssa`:
    that text, when the caller has it already)."""
    return _Emitter(kernel, target, ssa).run()


# Attributes that hold tile dims (`tile.arange` size, `tile.broadcast` and `tile.reshape` shape).
_DIM_KEYS = ("size", "shape")


class _Emitter:
    def __init__(self, kernel: Kernel, target: Target, ssa: str | None = None):
        self.kernel = kernel
        self.ssa = ssa
        self.target = target
        self.syntax = target.syntax
        self.namer = Namer(target.syntax.reserved)
        self.names: dict[Value, str] = {}
        self.lines: list[str] = []
        self.position = 0  # the op's number in program order, as the verifier counts
        self.in_grid = False  # inside scf.grid, where `syntax.grid_define` applies
        # Values that bound a loop or a region.
        self.bounds = {
            v for op in kernel.walk() if op.name in ("scf.for", *REGION_OPS) for v in op.operands
        }
        # The sizes and strides of the boxes copies view: a pipeliner copies the view with the
        # copy (TileLang's T.Pipelined), which a stored variable in it would break.
        self.views = {
            v
            for op in kernel.walk()
            if op.name in BOX_SCALARS
            for part in split_box(op.operands[BOX_SCALARS[op.name]])[1:]
            for v in part
        }
        # The same in every program: plain definitions in the grid too, small expressions the
        # target reads through (TileLang proves a specialized stride a multiple from its Let).
        self.invariants = launch_invariants(kernel)
        self.plain_ops: dict[Value, int] = {}  # grid values defined plainly: their ops
        # Compile-time parameters: tile dims may name them (`kernel.attrs["constexpr_params"]`).
        self.constexprs = set(kernel.attrs.get("constexpr_params") or ())
        if self.constexprs and not self.syntax.constexpr_param:
            raise EmitError(
                f"@{kernel.name} keeps {', '.join(sorted(self.constexprs))} symbolic, and target "
                f"{target.name!r} has no compile-time parameters; give each a value (-D NAME=N)"
            )

    def run(self) -> str:
        self.refuse_unspelled_types()
        syntax = self.syntax
        digest = ssa_sha256(self.ssa if self.ssa is not None else print_kernel(self.kernel))
        self.lines += [syntax.comment.format(text=f"ssa-sha256: {digest}"), *syntax.prelude]
        if self.namer.claim(self.kernel.name) != self.kernel.name:
            raise EmitError(
                f"kernel name @{self.kernel.name} is reserved in target {self.target.name!r}; "
                "rename the kernel"
            )
        params = ", ".join(self.param(v) for v in self.kernel.args)
        opening = syntax.kernel_open
        self.lines += [line.format(name=self.kernel.name, params=params) for line in opening]
        for value in self.kernel.args:
            name, dtype = self.names[value], self.target.dtype(value.type.dtype)
            if isinstance(value.type, BufferType):
                for line in syntax.param_prologue:
                    self.write(1, line.format(name=name, dtype=dtype))
            elif value.name in self.constexprs:
                # Tile dims name the parameter; values read it as a value of its own.
                self.names[value] = self.namer.fresh()
                as_value = self.to_value(name, value.type.dtype) if syntax.to_value else name
                self.define(1, self.names[value], as_value, value.type.dtype)
            elif syntax.to_value:
                self.define(1, name, self.to_value(name, value.type.dtype), value.type.dtype)
        self.block(self.kernel.body, 1, targets=[])
        self.close(0)
        return "\n".join(self.lines) + "\n"

    def param(self, value: Value) -> str:
        if value.name in self.constexprs:  # kept as it is: tile dims name it
            self.namer.taken.add(value.name)
            self.names[value] = value.name
            return self.syntax.constexpr_param.format(name=value.name)
        name = self.define_name(value, value.name)
        form = (
            self.syntax.buffer_param
            if isinstance(value.type, BufferType)
            else self.syntax.scalar_param
        )
        return form.format(name=name, dtype=self.target.dtype(value.type.dtype))

    def to_value(self, name: str, dtype: str) -> str:
        return self.syntax.to_value.format(name=name, dtype=self.target.dtype(dtype))

    def close(self, depth: int) -> None:
        if self.syntax.block_close:
            self.write(depth, self.syntax.block_close)

    def refuse_unspelled_types(self) -> None:
        """A value of an element type the target cannot spell is refused at the op that makes it,
        before any text (a backend may lack a type on one device: TileLang's C form has no bf16)."""
        spelled = self.target.dtype_spelling
        for position, op in enumerate(self.kernel.walk(), 1):
            missing = next((v.type.dtype for v in op.results if v.type.dtype not in spelled), None)
            if missing is not None:
                self.position = position
                raise self.fail(
                    op,
                    f"makes {missing} values, a type the target has none of",
                    "compute in a type it has (f32 for bf16), or compile for another backend or "
                    "device",
                )

    def fail(self, op: Operation, problem: str, fix: str) -> EmitError:
        where = f"op #{self.position} ({op.name}) in @{self.kernel.name}"
        return EmitError(f"{where} {problem} for target {self.target.name!r}; {fix}")

    def define_name(self, value: Value, wanted: str | None = None) -> str:
        self.names[value] = self.namer.claim(wanted) if wanted else self.namer.fresh()
        return self.names[value]

    def write(self, depth: int, text: str) -> None:
        """`text` at `depth`; a spelling of several lines has each at that depth."""
        self.lines += [self.syntax.indent * depth + line for line in text.split("\n")]

    def define(self, depth: int, name: str, expr: str, dtype: str, plain: bool = False) -> None:
        type_ = self.target.dtype(dtype)
        form = (self.in_grid and not plain and self.syntax.grid_define) or self.syntax.define
        self.write(depth, form.format(name=name, expr=expr, type=type_))

    def block(self, block: Block, depth: int, targets: list[str]) -> None:
        """The block's ops, then its `scf.yield` operands assigned to `targets`."""
        start = len(self.lines)
        for op in block.ops:
            self.position += 1
            if op.name != "scf.yield":
                self.op(op, depth)
        if block.terminator is not None:
            self.assign(targets, list(block.terminator.operands), depth)
        if len(self.lines) == start:
            self.write(depth, self.syntax.empty_block)

    def assign(self, targets: list[str], sources: list[Value], depth: int) -> None:
        """Assign all `sources` to `targets` at once, copying a source another move overwrites."""
        moves = [(t, s) for t, s in zip(targets, sources, strict=True) if t != self.names[s]]
        overwritten = {t for t, _ in moves}
        copies: dict[str, str] = {}
        for _, source in moves:
            name = self.names[source]
            if name in overwritten and name not in copies:
                copies[name] = self.namer.fresh()
                self.define(depth, copies[name], name, source.type.dtype)
        for target, source in moves:
            expr = copies.get(self.names[source], self.names[source])
            type_ = self.target.dtype(source.type.dtype)
            self.write(depth, self.syntax.assign.format(name=target, expr=expr, type=type_))

    def op(self, op: Operation, depth: int) -> None:
        if not self.target.has(op.name):
            raise self.fail(op, "has no spelling", "it is not legal: decompose it with a pass")
        if op.name == "scf.for":
            self.loop(op, depth)
        elif op.name == "scf.while":
            self.while_loop(op, depth)
        elif op.name == "scf.if":
            self.branch(op, depth)
        elif op.name in REGION_OPS:
            self.region(op, depth)
        elif op.name in self.target.declaring_ops:
            name = self.define_name(op.result)
            self.write(depth, self.spell(op, name=name))
        elif not op.results:
            self.write(depth, self.syntax.statement.format(expr=self.spell(op)))
        else:
            expr = self.spell(op)
            name, dtype = self.define_name(op.result), op.result.type.dtype
            indirect = self.in_grid and self.syntax.grid_reference
            # Constants and loop bounds stay plain definitions: bounds are read where a stored
            # value is not yet declared, and constants fold best as they are (float zeros where
            # the syntax says that folding them is wrong).
            stored = indirect and self.syntax.grid_stored_float_zeros and _float_zero(op)
            bound = indirect and (op.name == "arith.constant" or op.result in self.bounds)
            ops = 1 + sum(self.plain_ops.get(v, 0) for v in op.operands)
            small = lookup(op.name).effect == "pure" and ops <= self.syntax.grid_plain_ops
            plain = bound or small or op.result in self.invariants or op.result in self.views
            if plain and not stored:
                self.define(depth, name, expr, dtype, plain=True)
                if small and op.result not in self.invariants:
                    self.plain_ops[op.result] = ops
            else:
                self.define(depth, name, expr, dtype)
                if indirect:
                    self.names[op.result] = self.syntax.grid_reference.format(name=name)

    def loop(self, op: Operation, depth: int) -> None:
        lb, ub, step, *inits = (self.names[v] for v in op.operands)
        iv, *carried = op.regions[0].block.args
        variables = []
        for init, arg, result in zip(inits, carried, op.results, strict=True):
            name = self.define_name(arg)
            self.names[result] = name
            variables.append(name)
            self.define(depth, name, init, arg.type.dtype)
        index = self.namer.fresh()
        type_ = self.target.dtype("index")
        pipelined = "stages" in op.attrs and self.syntax.pipelined_for_open
        form = self.syntax.pipelined_for_open if pipelined else self.syntax.for_open
        stages = op.attrs.get("stages")
        self.write(depth, form.format(iv=index, lb=lb, ub=ub, step=step, type=type_, stages=stages))
        if self.syntax.to_value:
            self.define(depth + 1, self.define_name(iv), self.to_value(index, "index"), "index")
        else:
            self.names[iv] = index
        outside, self.in_grid = self.in_grid, self.in_grid and not pipelined
        self.block(op.regions[0].block, depth + 1, targets=variables)
        self.in_grid = outside
        self.close(depth)

    def while_loop(self, op: Operation, depth: int) -> None:
        condition, body = (region.block for region in op.regions)
        variables = []
        for init, result, *args in zip(
            op.operands, op.results, condition.args, body.args, strict=True
        ):
            name = self.define_name(result)
            self.names.update(dict.fromkeys(args, name))
            variables.append(name)
            self.define(depth, name, self.names[init], result.type.dtype)
        start = self.position
        check = self.namer.fresh()
        self.define(depth, check, self.check(condition, depth), "i1")
        if self.in_grid and self.syntax.grid_reference:
            check = self.syntax.grid_reference.format(name=check)
        self.write(depth, self.syntax.while_open.format(cond=check))
        self.block(body, depth + 1, targets=variables)
        end, self.position = self.position, start
        again = self.check(condition, depth + 1)
        type_ = self.target.dtype("i1")
        self.write(depth + 1, self.syntax.assign.format(name=check, expr=again, type=type_))
        self.position = end
        self.close(depth)

    def check(self, condition: Block, depth: int) -> str:
        """A `scf.while` condition's ops; the name of the i1 it yields."""
        for op in condition.ops[:-1]:
            self.position += 1
            self.op(op, depth)
        self.position += 1
        return self.names[condition.terminator.operands[0]]

    def region(self, op: Operation, depth: int) -> None:
        """scf.grid / scf.parallel: a region over the indices 0 .. n-1, opened as `syntax` says."""
        form = getattr(self.syntax, REGION_OPS[op.name])
        if not form:
            raise self.fail(op, "has no opening in the syntax", "lower it with a generic pass")
        block = op.regions[0].block
        index, extent = self.define_name(block.args[0]), self.names[op.operands[0]]
        warps = self.kernel.attrs.get("num_warps")
        if "shape" in op.attrs and self.syntax.parallel_nest_open:
            self.nest(op.attrs["shape"], index, depth)
        else:
            opening = form.format(pid=index, iv=index, count=extent, extent=extent, num_warps=warps)
            self.write(depth, opening)
        outside, self.in_grid = self.in_grid, self.in_grid or op.name == "scf.grid"
        self.block(block, depth + 1, targets=[])
        self.in_grid = outside
        self.close(depth)

    def nest(self, shape: list[int], position: str, depth: int) -> None:
        """An scf.parallel over a tile's elements as the nest of its dims (`parallel_nest_open`);
        inside, `position` is the row-major position they make, spelled as the target spells
        index arithmetic, one plain definition a step."""
        dims = [self.namer.fresh() for _ in shape]
        extents = [self.syntax.literal(extent) for extent in shape]
        opening = self.syntax.parallel_nest_open.format(
            ivs=", ".join(dims), extents=", ".join(extents)
        )
        self.write(depth, opening)
        multiply, add = (self.target.spelling[name] for name in ("arith.mul", "arith.add"))
        fields = {"result_dtype": self.target.dtype("index")}
        partial = dims[0]
        for step, (dim, extent) in enumerate(zip(dims[1:], extents[1:], strict=True), 2):
            scaled = self.namer.fresh()
            product = spelled(multiply, OpText((partial, extent), {}, fields, ("index", "index")))
            self.define(depth + 1, scaled, product, "index", plain=True)
            partial = position if step == len(dims) else self.namer.fresh()
            total = spelled(add, OpText((scaled, dim), {}, fields, ("index", "index")))
            self.define(depth + 1, partial, total, "index", plain=True)

    def branch(self, op: Operation, depth: int) -> None:
        results = [self.define_name(v) for v in op.results]
        self.write(depth, self.syntax.if_open.format(cond=self.names[op.operands[0]]))
        self.block(op.regions[0].block, depth + 1, targets=results)
        otherwise = op.regions[1].block
        if results or len(otherwise.ops) > 1:
            self.write(depth, self.syntax.else_open)
            self.block(otherwise, depth + 1, targets=results)
        else:
            self.position += len(otherwise.ops)
        self.close(depth)

    def spell(self, op: Operation, **extra: str) -> str:
        spelling = self.target.spelling.get(op.name)
        if spelling is None:
            raise self.fail(op, "has no spelling", "it is legal: add it to the spelling table")
        for value in op.operands:
            if not isinstance(value.type, BufferType | ArrayType) and not self.target.accepts(
                op.name, value.type.dtype
            ):
                raise self.fail(op, f"takes no {value.type.dtype} operands", "cast them first")
        fields = {**self.fields(op), **extra}
        names = tuple(self.names[v] for v in op.operands)
        text = OpText(names, op.attrs, fields, tuple(v.type.dtype for v in op.operands))
        try:
            return spelled(spelling, text)
        except Unspellable as error:
            raise self.fail(op, error.problem, error.fix) from None
        except KeyError as missing:
            raise self.fail(
                op,
                f"is spelled with {missing.args[0]!r}, which neither its attributes nor the "
                "kernel give",
                "run the backend's schedule pass first (it records num_warps), or give the op "
                "that attribute",
            ) from None

    def fields(self, op: Operation) -> dict[str, str]:
        fields = {}
        for key, value in op.attrs.items():
            # an attribute naming an element type (cast, dot, an accumulator's operands)
            is_dtype = key == "dtype" or key.endswith("_dtype")
            if is_dtype:
                fields[key] = self.target.dtype(value)
            else:
                fields[key] = self.syntax.literal(self.dims(value) if key in _DIM_KEYS else value)
        if self.kernel.attrs.get("num_warps"):  # the program's warps, where the schedule fixed them
            fields["num_warps"] = str(self.kernel.attrs["num_warps"])
        if op.results:
            type_ = op.results[0].type
            unbound = [d for d in type_.shape if isinstance(d, str) and d not in self.constexprs]
            if unbound:
                raise self.fail(op, f"has unbound tile dims {unbound}", "run ssa.select_schedule")
            fields["result_dtype"] = self.target.dtype(type_.dtype)
            fields["result_shape"] = self.syntax.literal(self.dims(list(type_.shape)))
        return fields

    def dims(self, dims: object) -> object:
        """Tile dims, with the ones naming a compile-time parameter as that name."""
        if isinstance(dims, list | tuple):
            return [self.dims(d) for d in dims]
        return Name(dims) if isinstance(dims, str) and dims in self.constexprs else dims


def _float_zero(op: Operation) -> bool:
    return op.name == "arith.constant" and is_float(op.result.type.dtype) and op.attrs["value"] == 0
