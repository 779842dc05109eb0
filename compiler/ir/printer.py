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

import math
from json.encoder import encode_basestring_ascii

from compiler.ir.core import Block, Kernel, Operation, Value


def format_attr(value: object) -> str:
    kind = type(value)  # the three commonest first; the checks below give them the same text
    if kind is str:
        return encode_basestring_ascii(value)
    if kind is int:
        return str(value)
    if kind is list:
        return "[" + ", ".join([str(v) if type(v) is int else format_attr(v) for v in value]) + "]"
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
        return encode_basestring_ascii(value)  # what json.dumps(value) returns, less its overhead
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join([format_attr(v) for v in value]) + "]"
    raise TypeError(f"attribute value {value!r} has no text form")


def format_attrs(attrs: dict) -> str:
    if len(attrs) == 1:
        ((key, value),) = attrs.items()
        return f"{{{key} = {format_attr(value)}}}"
    return "{" + ", ".join([f"{k} = {format_attr(attrs[k])}" for k in sorted(attrs)]) + "}"


class _Printer:
    def __init__(self, kernel: Kernel):
        self.names: dict[Value, str] = {v: f"%{v.name}" for v in kernel.args}
        self.types: dict[int, str] = {}  # id(type) -> its text, within this one printing
        self.lines: list[str] = []

    def name(self, value: Value) -> str:
        name = self.names.get(value)
        if name is None:
            name = self.names[value] = f"%{len(self.names) - self._num_args}"
        return name

    def type(self, type_: object) -> str:
        text = self.types.get(id(type_))  # types outlive the printing: ids stay unique
        if text is None:
            text = self.types[id(type_)] = str(type_)
        return text

    def print_kernel(self, kernel: Kernel) -> str:
        self._num_args = len(kernel.args)
        args = ", ".join(f"%{v.name}: {v.type}" for v in kernel.args)
        attrs = f" attributes {format_attrs(kernel.attrs)}" if kernel.attrs else ""
        self.lines.append(f"kernel @{kernel.name}({args}){attrs} {{")
        self.print_ops(kernel.body, 1)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def print_ops(self, block: Block, depth: int) -> None:
        indent = "  " * depth
        names, types, lines, name = self.names, self.types, self.lines, self.name
        num_args = self._num_args
        operand_name = names.__getitem__
        for op in block.ops:  # the common op, no region and one result, without a call
            try:
                operands = ", ".join(map(operand_name, op.operands))
            except KeyError:  # a value used before its definition: `name` numbers it
                operands = ", ".join([names.get(v) or name(v) for v in op.operands])
            if op.attrs:
                text = f"{op.name}({operands}) {format_attrs(op.attrs)}"
            else:
                text = f"{op.name}({operands})"
            if len(op.results) == 1:
                value = op.results[0]
                type_text = types.get(id(value.type))
                if type_text is None:
                    type_text = self.type(value.type)
                result = names.get(value)
                if result is None:
                    result = names[value] = f"%{len(names) - num_args}"  # as `name` does
                text = f"{result} = {text} : {type_text}"
            elif op.results:
                text = self.with_results(op, text)
            if op.regions:
                self.print_regions(op, depth, text)
            else:
                lines.append(indent + text)

    def with_results(self, op: Operation, text: str) -> str:
        results = ", ".join([self.name(v) for v in op.results])
        types = ", ".join([self.type(v.type) for v in op.results])
        return f"{results} = {text} : {types}"

    def print_regions(self, op: Operation, depth: int, text: str) -> None:
        indent = "  " * depth
        self.lines.append(f"{indent}{text} {{")
        for i, region in enumerate(op.regions):
            if i:
                self.lines.append(f"{indent}}} {{")
            for block in region.blocks:
                args = ", ".join([f"{self.name(v)}: {self.type(v.type)}" for v in block.args])
                self.lines.append(f"{indent}^({args}):")
                self.print_ops(block, depth + 1)
        self.lines.append(f"{indent}}}")


def print_kernel(kernel: Kernel) -> str:
    return _Printer(kernel).print_kernel(kernel)
