"""The deterministic text form of a kernel.

    kernel @add(%x: buffer<f32>, %x_size_0: index) attributes {grid = "..."} {
      %0 = index.program_id() {axis = 0} : index
      %1, %2 = scf.for(%a, %b, %c, %d, %e) : f32, f32 {
      ^(%3: index, %4: f32, %5: f32):
        scf.yield(%4, %5)
      }
    }

Kernel arguments keep their names; every other value is numbered in order of definition, so the
same IR always prints the same text and a parsed kernel prints back identically.
"""

from __future__ import annotations

import json
import math

from compiler.ir.core import Block, Kernel, Operation, Value


def format_attr(value: object) -> str:
    if value is None:
        return "none"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_attr(v) for v in value) + "]"
    raise TypeError(f"attribute value {value!r} has no text form")


def format_attrs(attrs: dict) -> str:
    return "{" + ", ".join(f"{k} = {format_attr(attrs[k])}" for k in sorted(attrs)) + "}"


class _Printer:
    def __init__(self, kernel: Kernel):
        self.names: dict[Value, str] = {v: f"%{v.name}" for v in kernel.args}
        self.lines: list[str] = []

    def name(self, value: Value) -> str:
        if value not in self.names:
            self.names[value] = f"%{len(self.names) - self._num_args}"
        return self.names[value]

    def print_kernel(self, kernel: Kernel) -> str:
        self._num_args = len(kernel.args)
        args = ", ".join(f"%{v.name}: {v.type}" for v in kernel.args)
        attrs = f" attributes {format_attrs(kernel.attrs)}" if kernel.attrs else ""
        self.lines.append(f"kernel @{kernel.name}({args}){attrs} {{")
        self.print_ops(kernel.body, 1)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def print_ops(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.print_op(op, depth)

    def print_op(self, op: Operation, depth: int) -> None:
        indent = "  " * depth
        operands = ", ".join(self.name(v) for v in op.operands)
        text = f"{op.name}({operands})"
        if op.attrs:
            text += " " + format_attrs(op.attrs)
        if op.results:
            results = ", ".join(self.name(v) for v in op.results)
            text = f"{results} = {text} : " + ", ".join(str(v.type) for v in op.results)
        if not op.regions:
            self.lines.append(indent + text)
            return
        self.lines.append(f"{indent}{text} {{")
        for i, region in enumerate(op.regions):
            if i:
                self.lines.append(f"{indent}}} {{")
            for block in region.blocks:
                args = ", ".join(f"{self.name(v)}: {v.type}" for v in block.args)
                self.lines.append(f"{indent}^({args}):")
                self.print_ops(block, depth + 1)
        self.lines.append(f"{indent}}}")


def print_kernel(kernel: Kernel) -> str:
    return _Printer(kernel).print_kernel(kernel)
