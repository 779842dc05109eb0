"""`ntl.load`, `ntl.store` and the atomics (compare-and-swap too), through pointers
(`compiler/frontend/pointers.py`): each one `mem.*` op on the pointer's buffer."""

from __future__ import annotations

from collections.abc import Callable

from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.pointers import Pointer
from compiler.ir.core import Value
from compiler.ir.memory_rules import ATOMIC_KINDS


def _pointer(name: str, pointer: object) -> Pointer:
    if not isinstance(pointer, Pointer):
        raise CompileError(
            f"ntl.{name} takes a pointer: write x.source.data_ptr() + offsets (or load and store "
            "a parameter by using and assigning it)"
        )
    if pointer.param.buffer is None:
        raise CompileError(f"{pointer.param.name} is a scalar parameter and has no memory")
    return pointer


def _mask(arith: Arith, mask: object) -> list[Value]:
    return [] if mask is None else [arith.cast(arith.as_value(mask), "i1")]


def load(arith: Arith, pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False) -> Value:  # fmt: skip
    pointer = _pointer("load", pointer)
    offsets, masks = pointer.address(arith, *_mask(arith, mask))
    attrs = {} if other is None or not masks else {"other": other}
    return arith.b.create("mem.load", [pointer.param.buffer, offsets, *masks], attrs).result


def store(arith: Arith, pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy="") -> None:  # fmt: skip
    pointer = _pointer("store", pointer)
    value = arith.cast(arith.as_value(value), pointer.param.dtype)
    offsets, (value, *masks) = pointer.address(arith, value, *_mask(arith, mask))
    arith.b.create("mem.store", [pointer.param.buffer, offsets, value, *masks])


def _atomic(kind: str) -> Callable:
    def atomic(arith: Arith, pointer, val, mask=None, sem=None, scope=None) -> Value:
        pointer = _pointer(f"atomic_{kind}", pointer)
        value = arith.cast(arith.as_value(val), pointer.param.dtype)
        offsets, (value, *masks) = pointer.address(arith, value, *_mask(arith, mask))
        operands = [pointer.param.buffer, offsets, value, *masks]
        return arith.b.create("mem.atomic", operands, {"kind": kind}).result

    atomic.__name__ = f"atomic_{kind}"
    return atomic


def atomic_cas(arith: Arith, pointer, cmp, val, sem=None, scope=None) -> Value:
    """Where an element equals `cmp`, `val` replaces it; the old elements come back (Triton's
    `atomic_cas`, which takes no mask)."""
    pointer = _pointer("atomic_cas", pointer)
    value, compare = (arith.cast(arith.as_value(v), pointer.param.dtype) for v in (val, cmp))
    offsets, (value, compare) = pointer.address(arith, value, compare)
    operands = [pointer.param.buffer, offsets, value, compare]
    return arith.b.create("mem.atomic", operands, {"kind": "cas"}).result


def debug_barrier(arith: Arith) -> None:
    """The program's threads wait for each other, its memory accesses before it visible after."""
    arith.b.create("mem.barrier", [])


PRIMITIVES: dict[str, Callable] = {
    "load": load,
    "store": store,
    "debug_barrier": debug_barrier,
    **{f"atomic_{kind}": _atomic(kind) for kind in ATOMIC_KINDS if kind != "cas"},
    "atomic_cas": atomic_cas,
}
