"""Small in-place IR edits shared by the passes: find, insert before, replace and erase ops."""

from __future__ import annotations

from compiler.ir import Builder, Kernel, Operation, Value


def defining_op(value: Value) -> Operation | None:
    """The op whose result `value` is; None for kernel and block arguments."""
    return value.owner if isinstance(value.owner, Operation) else None


def builder_before(op: Operation) -> Builder:
    """A builder that inserts new ops just before `op`, in its block."""
    builder = Builder(op.parent)
    builder.index = op.parent.ops.index(op)
    return builder


def erase(op: Operation) -> None:
    op.parent.ops.remove(op)
    op.parent = None


def replace_op(kernel: Kernel, op: Operation, values: list[Value]) -> None:
    """Let every use of `op`'s results read `values` instead, then erase `op`."""
    for result, value in zip(op.results, values, strict=True):
        kernel.replace_uses(result, value)
    erase(op)
