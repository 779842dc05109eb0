"""A numpy reference interpreter of the IR, at any level (tiles, loops, arrays, grids).

`run_kernel` runs every program of a 1-D grid, `run_program` one program id. Buffers are flat
numpy arrays, changed in place; `meta` binds meta symbols (tile sizes written as names). An
optional observer sees every global memory access as an `Access`: the buffer (the kernel argument's
name), the flat element offsets actually accessed (after the mask), `load` or `store`, and the
iteration counts (0-based) of the enclosing `scf.for` and `scf.while` loops, outermost first.
Values are computed with numpy's semantics (bf16 as f32; fp8 as f32 rounded to the format, by
torch's conversion); the interpreter is a reference, not a fast path.
"""

from __future__ import annotations

import contextlib
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from compiler.ir import fp8
from compiler.ir.core import Block, Kernel, Operation
from compiler.ir.fused import fused_multiply_add
from compiler.ir.memory_rules import BOX_SCALARS, split_box
from compiler.ir.types import FP8_DTYPES, ArrayType

NUMPY_DTYPES = {
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "index": np.int64,
    "f16": np.float16,
    "bf16": np.float32,
    "f32": np.float32,
    "f64": np.float64,
    **dict.fromkeys(FP8_DTYPES, np.float32),
}
_CMP = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
_CMP |= {"eq": "equal", "ne": "not_equal"}


@dataclass(frozen=True)
class Access:
    """One `mem.load` or `mem.store` as executed."""

    buffer: str  # the name of the buffer operand (a kernel argument)
    kind: str  # "load" or "store"
    offsets: np.ndarray  # 1-D int64: the flat element offsets the mask let through
    loops: tuple[int, ...]  # iteration counts of the enclosing loops, outermost first


Observer = Callable[[Access], None]


@dataclass(frozen=True)
class ProgramRun:
    """What one program did besides its memory effects."""

    outer_loop_trips: tuple[int, ...]  # iterations of each outermost loop, in execution order


def run_kernel(
    kernel: Kernel,
    args: dict,
    meta: dict | None = None,
    grid: int = 1,
    observer: Observer | None = None,
) -> None:
    """Run each program of a 1-D grid; buffers (flat numpy arrays in `args`) change in place."""
    for pid in range(grid):
        run_program(kernel, args, pid, meta, observer)


def run_program(
    kernel: Kernel,
    args: dict,
    pid: int,
    meta: dict | None = None,
    observer: Observer | None = None,
) -> ProgramRun:
    """Run program `pid` alone; `args` maps every kernel argument's name to its value."""
    env = {value: args[value.name] for value in kernel.args}
    interpreter = _Interpreter(env, meta or {}, pid, observer)
    interpreter.block(kernel.body)
    return ProgramRun(tuple(interpreter.outer_loop_trips))


def reinterpret(x: object, source: str, target: str) -> np.ndarray:
    """The bits of `x` as `target`; bf16 lives here as f32, its top half, and fp8 as f32."""
    if source in FP8_DTYPES:
        return fp8.to_bits(x, source).view(NUMPY_DTYPES[target])
    if target in FP8_DTYPES:
        return fp8.from_bits(np.asarray(x, NUMPY_DTYPES[source]), target)
    if source == "bf16":
        return (
            (np.asarray(x, np.float32).view(np.uint32) >> 16)
            .astype(np.uint16)
            .view(NUMPY_DTYPES[target])
        )
    if target == "bf16":
        word = np.asarray(x, NUMPY_DTYPES[source]).view(np.uint16).astype(np.uint32) << 16
        return word.view(np.float32)
    return np.asarray(x, NUMPY_DTYPES[source]).view(NUMPY_DTYPES[target])


_COMBINE = {
    "add": operator.add,
    "max": max,
    "min": min,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "xchg": lambda old, new: new,
}


def _atomic(buffer, offsets, values, mask, kind: str, compare=None) -> np.ndarray:
    """One element after another, in order: each sees the updates of the ones before it. `cas`
    replaces an element that equals its `compare`."""
    offsets, values, mask, compare = (
        np.broadcast_to(np.asarray(a), np.shape(offsets)) for a in (offsets, values, mask, compare)
    )
    old = np.zeros(np.shape(offsets), buffer.dtype)
    for at in np.ndindex(np.shape(offsets)):
        if mask[at]:
            old[at] = seen = buffer[offsets[at]]
            if kind != "cas":
                buffer[offsets[at]] = _COMBINE[kind](seen, values[at])
            elif seen == compare[at]:
                buffer[offsets[at]] = values[at]
    return old


def _sorted(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    ordered = np.sort(x, axis=axis, kind="stable")
    return np.flip(ordered, axis) if descending else ordered


def _gathered(x: np.ndarray, index: np.ndarray, axis: int) -> np.ndarray:
    """Out-of-range indices read 0, as the decomposition does."""
    index = np.asarray(index, np.int64)
    inside = (index >= 0) & (index < x.shape[axis])
    picked = np.take_along_axis(x, np.where(inside, index, 0), axis)
    return np.where(inside, picked, 0)


def _running_sum(x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return np.cumsum(x, axis=axis, dtype=x.dtype)


def _box(shape: list[int], scalars: list) -> tuple[np.ndarray, np.ndarray]:
    """The flat offsets of a box's elements (row-major) and where every dim is in bounds."""
    bases, sizes, strides = split_box(scalars)
    shape = [1] * (len(bases) - len(shape)) + list(shape)
    grids = np.meshgrid(*(np.arange(d, dtype=np.int64) for d in shape), indexing="ij")
    offsets = np.zeros(shape, np.int64)
    mask = np.ones(shape, bool)
    for grid, base, size, stride in zip(grids, bases, sizes, strides, strict=True):
        index = grid + int(base)
        offsets += index * int(stride)
        mask &= (index >= 0) & (index < int(size))
    return offsets.ravel(), mask.ravel()


def _lanes(op: Operation, offset: int) -> np.ndarray:
    """The offsets of a vector access; one not at a multiple of its lanes is an error (on a GPU
    the access would fault)."""
    lanes = op.attrs["lanes"]
    if offset % lanes:
        raise ValueError(f"{op.name}: offset {offset} is not a multiple of its {lanes} lanes")
    return offset + np.arange(lanes)


def _masked(offsets: object, mask: object) -> np.ndarray:
    offsets, mask = np.broadcast_arrays(np.asarray(offsets), np.asarray(mask, bool))
    return offsets[mask].astype(np.int64).reshape(-1)


class _Interpreter:
    def __init__(self, env: dict, meta: dict, pid: int, observer: Observer | None = None):
        self.env, self.meta, self.pid, self.observer = env, meta, pid, observer
        self.loops: list[int] = []
        self.outer_loop_trips: list[int] = []

    def block(self, block: Block) -> list:
        for op in block.ops:
            if op.name == "scf.yield":
                return [self.env[v] for v in op.operands]
            results = self.op(op, [self.env[v] for v in op.operands])
            for value, result in zip(op.results, results, strict=True):
                array = isinstance(value.type, ArrayType)  # an array is changed in place
                dtype = NUMPY_DTYPES[value.type.dtype]
                result = result if array else np.asarray(result).astype(dtype)
                if value.type.dtype in FP8_DTYPES and not array:
                    result = fp8.rounded(result, value.type.dtype).float().numpy()
                self.env[value] = result
        return []

    def observe(self, op: Operation, kind: str, offsets: object, mask: object, buffer=None) -> None:
        if self.observer is not None:
            name = (buffer or op.operands[0]).name
            access = Access(name, kind, _masked(offsets, mask), tuple(self.loops))
            self.observer(access)

    def op(self, op: Operation, x: list) -> list:
        name, attrs = op.name, op.attrs
        if name == "scf.for":
            return self.loop(op, x)
        if name == "scf.if":
            return self.block(op.regions[0 if x[0] else 1].block)
        if name == "scf.while":
            return self.while_loop(op, x)
        if name in ("scf.parallel", "scf.grid"):
            body = op.regions[0].block
            for i in range(int(x[0])):
                self.env[body.args[0]] = np.int64(i)
                self.block(body)
            return []
        if name == "mem.alloc":  # poisoned: an element read before it is written shows up
            dtype = NUMPY_DTYPES[attrs["dtype"]]
            poison = np.nan if np.issubdtype(dtype, np.floating) else 0
            return [np.full(attrs["size"], poison, dtype)]
        if name == "mem.write":
            x[0][x[1]] = x[2]
            return []
        if name == "mem.barrier":
            return []
        if name == "mem.dot":
            m, n, k = attrs["m"], attrs["n"], attrs["k"]
            b = x[1].reshape(n, k).T if attrs.get("transpose_b") else x[1].reshape(k, n)
            product = x[0].reshape(m, k).astype(np.float64) @ b.astype(np.float64)
            x[2][:] = product.ravel() + (x[2] if attrs["accumulate"] else 0)
            return []
        if name == "mem.reduce":
            combined = getattr(np, attrs["kind"])(x[0].reshape(attrs["shape"]), axis=1)
            x[1][:] = combined.ravel()
            return []
        if name == "mem.copy":
            x[1][:] = x[0]
            return []
        if name == "mem.copy_box_in":
            offsets, mask = _box(attrs["shape"], x[BOX_SCALARS[name]])
            self.observe(op, "load", offsets, mask)
            x[-1][:] = np.where(mask, x[0][np.where(mask, offsets, 0)], 0)
            return []
        if name == "mem.copy_box_out":
            offsets, mask = _box(attrs["shape"], x[BOX_SCALARS[name]])
            self.observe(op, "store", offsets, mask, buffer=op.operands[1])
            x[1][offsets[mask]] = x[0][mask]
            return []
        if name == "mem.load_lanes":
            offsets = _lanes(op, int(x[1]))
            self.observe(op, "load", offsets, True)
            x[2][:] = x[0][offsets]
            return []
        if name == "mem.store_lanes":
            offsets = _lanes(op, int(x[2]))
            self.observe(op, "store", offsets, True, buffer=op.operands[1])
            x[1][offsets] = x[0]
            return []
        if name == "mem.store":
            mask = x[3] if len(x) > 3 else np.ones(np.shape(x[1]), bool)
            self.observe(op, "store", x[1], mask)
            x[0][x[1][mask]] = x[2][mask]
            return []
        if name == "mem.atomic":
            cas = attrs["kind"] == "cas"  # its fourth operand is what it compares with
            mask = x[3] if len(x) > 3 and not cas else np.ones(np.shape(x[1]), bool)
            self.observe(op, "store", x[1], mask)
            return [_atomic(x[0], x[1], x[2], mask, attrs["kind"], x[3] if cas else None)]
        if name == "mem.load":
            mask = x[2] if len(x) > 2 else True
            self.observe(op, "load", x[1], mask)
        return [self.value(op, name, attrs, x)]

    def loop(self, op: Operation, x: list) -> list:
        body, carried = op.regions[0].block, x[3:]
        with self.counting():
            for i in range(int(x[0]), int(x[1]), int(x[2])):
                self.loops[-1] += 1
                self.env.update(zip(body.args, [np.int64(i), *carried], strict=True))
                carried = self.block(body)
        return carried

    def while_loop(self, op: Operation, carried: list) -> list:
        condition, body = (region.block for region in op.regions)
        with self.counting():
            while True:
                self.loops[-1] += 1  # a check's accesses count with the iteration it starts
                self.env.update(zip(condition.args, carried, strict=True))
                if not self.block(condition)[0]:
                    self.loops[-1] -= 1  # the last check starts none
                    return carried
                self.env.update(zip(body.args, carried, strict=True))
                carried = self.block(body)

    @contextlib.contextmanager
    def counting(self):
        """A loop's iterations (0-based) in `loops` while it runs; an outermost loop's count of
        them in `outer_loop_trips` after."""
        outermost = not self.loops
        self.loops.append(-1)
        try:
            yield
        finally:
            trips = self.loops.pop() + 1
            if outermost:
                self.outer_loop_trips.append(trips)

    def value(self, op: Operation, name: str, attrs: dict, x: list) -> object:
        shape = tuple(self.meta.get(d, d) for d in op.results[0].type.shape)
        if name == "mem.load" and not shape:  # one element: only a true mask may read it
            masked_off = len(x) > 2 and not x[2]
            return attrs.get("other") or 0 if masked_off else x[0][x[1]]
        dialect, _, short = name.partition(".")
        if name == "arith.constant":
            return np.full(shape, attrs["value"])
        if name in ("arith.idiv", "arith.irem"):  # truncating, as C; no |x|: |INT_MIN| overflows
            floor = np.floor_divide(x[0], x[1])
            inexact = (x[0] - x[1] * floor) != 0
            quotient = np.where(inexact & ((x[0] < 0) != (x[1] < 0)), floor + 1, floor)
            return quotient if short == "idiv" else x[0] - x[1] * quotient
        if name == "arith.cmp":
            return getattr(np, _CMP[attrs["pred"]])(x[0], x[1])
        if name == "arith.bitcast":
            return reinterpret(x[0], op.operands[0].type.dtype, attrs["dtype"])
        if name == "mem.load":
            mask = x[2] if len(x) > 2 else np.ones(np.shape(x[1]), bool)
            return np.where(mask, x[0][np.where(mask, x[1], 0)], attrs.get("other") or 0)
        simple = {
            "arith.add": operator.add,
            "arith.sub": operator.sub,
            "arith.mul": operator.mul,
            "arith.div": operator.truediv,
            "arith.max": np.fmax,  # IEEE maxNum: a NaN operand gives the other
            "arith.min": np.fmin,
            "arith.and": operator.and_,
            "arith.or": operator.or_,
            "arith.xor": operator.xor,
            "arith.shl": np.left_shift,
            "arith.shr": np.right_shift,
            "arith.neg": operator.neg,
            "arith.not": np.logical_not,
            "arith.cast": lambda a: a,
            "math.rsqrt": lambda a: 1 / np.sqrt(a),
            "math.pow": np.power,
            "math.fmod": np.fmod,
            "math.fma": fused_multiply_add,
            "math.erf": np.vectorize(math.erf, otypes=[float]),
            "math.atan": np.arctan,
            "math.isnan": np.isnan,
            "select.where": np.where,
            "linalg.dot": lambda a, b: a.astype(np.float64) @ b.astype(np.float64),
            "tile.arange": lambda: np.arange(self.meta.get(attrs["size"], attrs["size"])),
            "tile.broadcast": lambda a: np.broadcast_to(a, shape),
            "tile.expand_dims": lambda a: np.expand_dims(a, attrs["axis"]),
            "tile.reshape": lambda a: np.reshape(a, shape),
            "tile.trans": lambda a: np.transpose(a, attrs["perm"]),
            "tile.sort": lambda a: _sorted(a, attrs["axis"], attrs["descending"]),
            "tile.gather": lambda a, i: _gathered(a, i, attrs["axis"]),
            "scan.sum": lambda a: _running_sum(a, attrs["axis"], attrs["reverse"]),
            "index.program_id": lambda: self.pid,
            "index.thread_id": lambda: 0,
            "index.num_threads": lambda: 1,
            "mem.read": lambda array, i: array[i],
            # One thread holds every element of a per-thread layout, each in its own slot.
            "mem.owned_slots": lambda array: np.int64(array.size),
            "mem.owned_position": lambda array, slot: slot,
            "index.meta": lambda: self.meta[attrs["name"]],
        }
        if name in simple:
            return simple[name](*x)
        if dialect == "reduce":
            return getattr(np, short)(x[0], axis=attrs["axis"])
        return getattr(np, short)(*x)  # math.exp, math.log2, ...
