"""Atomics a program makes once, made by one of its threads.

Where a target runs a program's code outside its parallel loops on every thread of the program
(`ssa.lower_parallel`'s "threads" and "native" forms), a store there is harmless (each thread
stores the same value) but an atomic is not: `atomic_add(p, s)` would add s once per thread, and
each thread would see another old value. So an atomic outside every `scf.parallel` becomes a
parallel loop of one iteration, which one thread runs; where its old value is used, the loop
writes it to a one-element array of the program's tile scope, read after the loop (the barrier
after a loop that writes what other threads read makes it every thread's).
"""

from __future__ import annotations

from compiler.ir import Block, Builder, Kernel, Operation, Region, Value
from compiler.ir.types import ScalarType
from compiler.passes.helpers.rewrite import builder_before


def atomics_once_per_program(kernel: Kernel, scope: str) -> bool:
    """Wrap each atomic outside every `scf.parallel` of `kernel`; whether there was one."""
    atomics = [op for op in kernel.walk() if op.name == "mem.atomic" and not _in_parallel(op)]
    if not atomics:
        return False
    used = kernel.uses()
    for atomic in atomics:
        _run_once(kernel, atomic, scope, atomic.result in used)
    return True


def _in_parallel(op: Operation) -> bool:
    block = op.parent
    while block is not None and block.parent is not None:
        owner = block.parent.parent
        if owner.name == "scf.parallel":
            return True
        block = owner.parent
    return False


def _run_once(kernel: Kernel, atomic: Operation, scope: str, used: bool) -> None:
    if used:  # first: the array goes first in the kernel's body, which may hold the atomic
        cell = Builder(kernel.body)
        cell.index = 0  # with the kernel's other arrays, before any use
        attrs = {"dtype": atomic.result.type.dtype, "size": 1, "scope": scope}
        array = cell.create("mem.alloc", [], attrs).result
    b = builder_before(atomic)
    block = Block([Value(ScalarType("index"))])
    b.create("scf.parallel", [b.constant(1, "index")], {}, [], [Region([block])])
    atomic.parent.ops.remove(atomic)
    inner = Builder(block)
    inner.insert(atomic)
    if used:
        write = inner.create("mem.write", [array, inner.constant(0, "index"), atomic.result])
        old = b.value("mem.read", array, b.constant(0, "index"))
        kernel.replace_uses(atomic.result, old)
        write.operands[2] = atomic.result  # the write keeps the atomic's own value
    inner.create("scf.yield", [])
