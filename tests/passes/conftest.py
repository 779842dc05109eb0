"""Fixtures for pass tests: a stand-in Target record and a numpy reference interpreter of the IR."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np
import pytest

from compiler.ir import OPS, Block, Kernel, Operation
from compiler.ir.types import ArrayType

_NUMPY_DTYPES = {
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
}
_CMP = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
_CMP |= {"eq": "equal", "ne": "not_equal"}


@dataclass(frozen=True)
class StandInTarget:
    """The attributes passes may read from a backend Target record."""

    name: str = "stand-in"
    legal_ops: frozenset = frozenset(OPS)
    memory_scopes: dict = field(default_factory=lambda: {"global": "global"})
    capabilities: dict = field(default_factory=dict)
    operand_dtypes: dict = field(default_factory=dict)  # op -> the dtypes it takes; default all

    def capability(self, name: str, default: object = None) -> object:
        return self.capabilities.get(name, default)

    def accepts(self, op_name: str, dtype: str) -> bool:
        return op_name in self.legal_ops and dtype in self.operand_dtypes.get(op_name, (dtype,))


@pytest.fixture
def make_target():
    def make(illegal=(), operand_dtypes=None, **capabilities) -> StandInTarget:
        unknown = (set(illegal) | set(operand_dtypes or ())) - set(OPS)
        assert not unknown, f"not registered ops: {unknown}"
        legal = frozenset(OPS) - set(illegal)
        return StandInTarget(
            legal_ops=legal, capabilities=capabilities, operand_dtypes=operand_dtypes or {}
        )

    return make


@pytest.fixture
def interpret():
    return run_kernel


def run_kernel(kernel: Kernel, args: dict, meta: dict | None = None, grid: int = 1) -> None:
    """Run each program of a 1-D grid; buffers (flat numpy arrays in `args`) change in place."""
    for pid in range(grid):
        env = {value: args[value.name] for value in kernel.args}
        _Interpreter(env, meta or {}, pid).block(kernel.body)


class _Interpreter:
    def __init__(self, env: dict, meta: dict, pid: int):
        self.env, self.meta, self.pid = env, meta, pid

    def block(self, block: Block) -> list:
        for op in block.ops:
            if op.name == "scf.yield":
                return [self.env[v] for v in op.operands]
            results = self.op(op, [self.env[v] for v in op.operands])
            for value, result in zip(op.results, results, strict=True):
                array = isinstance(value.type, ArrayType)  # an array is changed in place
                dtype = _NUMPY_DTYPES[value.type.dtype]
                self.env[value] = result if array else np.asarray(result).astype(dtype)
        return []

    def op(self, op: Operation, x: list) -> list:
        name, attrs = op.name, op.attrs
        if name == "scf.for":
            body, carried = op.regions[0].block, x[3:]
            for i in range(int(x[0]), int(x[1]), int(x[2])):
                self.env.update(zip(body.args, [np.int64(i), *carried], strict=True))
                carried = self.block(body)
            return carried
        if name == "scf.if":
            return self.block(op.regions[0 if x[0] else 1].block)
        if name in ("scf.parallel", "scf.grid"):
            body = op.regions[0].block
            for i in range(int(x[0])):
                self.env[body.args[0]] = np.int64(i)
                self.block(body)
            return []
        if name == "mem.alloc":  # poisoned: an element read before it is written shows up
            dtype = _NUMPY_DTYPES[attrs["dtype"]]
            poison = np.nan if np.issubdtype(dtype, np.floating) else 0
            return [np.full(attrs["size"], poison, dtype)]
        if name == "mem.write":
            x[0][x[1]] = x[2]
            return []
        if name == "mem.barrier":
            return []
        if name == "mem.store":
            mask = x[3] if len(x) > 3 else np.ones(np.shape(x[1]), bool)
            x[0][x[1][mask]] = x[2][mask]
            return []
        return [self.value(op, name, attrs, x)]

    def value(self, op: Operation, name: str, attrs: dict, x: list) -> object:
        shape = tuple(self.meta.get(d, d) for d in op.results[0].type.shape)
        if name == "mem.load" and not shape:  # one element: only a true mask may read it
            masked_off = len(x) > 2 and not x[2]
            return attrs.get("other") or 0 if masked_off else x[0][x[1]]
        dialect, _, short = name.partition(".")
        if name == "arith.constant":
            return np.full(shape, attrs["value"])
        if name in ("arith.idiv", "arith.irem"):
            quotient = np.abs(x[0]) // np.abs(x[1]) * np.where((x[0] < 0) == (x[1] < 0), 1, -1)
            return quotient if short == "idiv" else x[0] - x[1] * quotient
        if name == "arith.cmp":
            return getattr(np, _CMP[attrs["pred"]])(x[0], x[1])
        if name == "mem.load":
            mask = x[2] if len(x) > 2 else np.ones(np.shape(x[1]), bool)
            return np.where(mask, x[0][np.where(mask, x[1], 0)], attrs.get("other") or 0)
        simple = {
            "arith.add": operator.add,
            "arith.sub": operator.sub,
            "arith.mul": operator.mul,
            "arith.div": operator.truediv,
            "arith.max": np.maximum,
            "arith.min": np.minimum,
            "arith.and": operator.and_,
            "arith.or": operator.or_,
            "arith.xor": operator.xor,
            "arith.neg": operator.neg,
            "arith.not": np.logical_not,
            "arith.cast": lambda a: a,
            "math.rsqrt": lambda a: 1 / np.sqrt(a),
            "math.pow": np.power,
            "select.where": np.where,
            "linalg.dot": lambda a, b: a.astype(np.float64) @ b.astype(np.float64),
            "tile.arange": lambda: np.arange(self.meta.get(attrs["size"], attrs["size"])),
            "tile.broadcast": lambda a: np.broadcast_to(a, shape),
            "tile.expand_dims": lambda a: np.expand_dims(a, attrs["axis"]),
            "tile.trans": lambda a: np.transpose(a, attrs["perm"]),
            "index.program_id": lambda: self.pid,
            "index.thread_id": lambda: 0,
            "index.num_threads": lambda: 1,
            "mem.read": lambda array, i: array[i],
            "index.meta": lambda: self.meta[attrs["name"]],
        }
        if name in simple:
            return simple[name](*x)
        if dialect == "reduce":
            return getattr(np, short)(x[0], axis=attrs["axis"])
        return getattr(np, short)(*x)  # math.exp, math.log2, ...
