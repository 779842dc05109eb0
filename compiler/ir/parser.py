"""Parses the text form written by `printer.py` back into a kernel."""

from __future__ import annotations

import json
import re

from compiler.ir.core import Block, Kernel, Operation, Region, Value
from compiler.ir.printer import format_attr
from compiler.ir.registry import lookup
from compiler.ir.types import ArrayType, BufferType, Type, value_type

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<string>"(?:[^"\\]|\\.)*")
    | (?P<number>-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+|inf\b))
    | (?P<value>%[A-Za-z0-9_]+)
    | (?P<symbol>@[A-Za-z0-9_]+)
    | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
    | (?P<punct>[(){}\[\],:=<>^])
    )""",
    re.VERBOSE,
)


class ParseError(ValueError):
    pass


class _Parser:
    def __init__(self, text: str):
        self.tokens: list[tuple[str, str, int]] = []
        for line_no, line in enumerate(text.splitlines(), 1):
            pos, end = 0, len(line.rstrip())
            while pos < end:
                match = _TOKEN.match(line, pos)
                if not match or match.end() == pos:
                    raise ParseError(f"line {line_no}: cannot read {line[pos:].strip()!r}")
                kind = match.lastgroup
                self.tokens.append((kind, match.group(kind), line_no))
                pos = match.end()
        self.pos = 0
        self.values: dict[str, Value] = {}

    def peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def next(self, expected: str | None = None) -> str:
        if self.pos >= len(self.tokens):
            raise ParseError(f"unexpected end of text, expected {expected or 'more'}")
        kind, text, line = self.tokens[self.pos]
        if expected is not None and text != expected:
            raise ParseError(f"line {line}: expected {expected!r}, found {text!r}")
        self.pos += 1
        return text

    def accept(self, text: str) -> bool:
        if self.peek() == text:
            self.pos += 1
            return True
        return False

    def kind(self) -> str | None:
        return self.tokens[self.pos][0] if self.pos < len(self.tokens) else None

    def parse_type(self) -> Type:
        word = self.next()
        if word == "buffer":
            self.next("<")
            dtype = self.next()
            self.next(">")
            return BufferType(dtype)
        if word == "array":
            self.next("<")
            dtype = self.next()
            self.next("[")
            size = int(self.next())
            self.next("]")
            self.next(">")
            return ArrayType(dtype, size)
        if word == "tile":
            self.next("<")
            dtype = self.next()
            self.next("[")
            dims = []
            while not self.accept("]"):
                token = self.next()
                dims.append(int(token) if token.lstrip("-").isdigit() else token)
                self.accept(",")
            self.next(">")
            return value_type(dtype, tuple(dims))
        return value_type(word, ())

    def parse_attr_value(self) -> object:
        kind, text = self.kind(), self.next()
        if text == "[":
            items = []
            while not self.accept("]"):
                items.append(self.parse_attr_value())
                self.accept(",")
            return items
        if kind == "string":
            return json.loads(text)
        if text in ("true", "false"):
            return text == "true"
        if text == "none":
            return None
        if text == "nan":
            return float("nan")
        if text in ("inf", "-inf"):
            return float(text)
        if kind == "number":
            return float(text) if any(c in text for c in ".eE") else int(text)
        raise ParseError(f"line {self.tokens[self.pos - 1][2]}: bad attribute value {text!r}")

    def parse_attrs(self) -> dict:
        attrs = {}
        self.next("{")
        while not self.accept("}"):
            key = self.next()
            self.next("=")
            attrs[key] = self.parse_attr_value()
            self.accept(",")
        return attrs

    def use(self, name: str) -> Value:
        if name not in self.values:
            raise ParseError(f"{name} is used before it is defined")
        return self.values[name]

    def define(self, name: str, type_: Type) -> Value:
        if name in self.values:
            raise ParseError(f"{name} is defined twice")
        value = Value(type_)
        self.values[name] = value
        return value

    def parse_block_body(self) -> list[Operation]:
        ops = []
        while self.peek() != "}":
            ops.append(self.parse_op())
        return ops

    def parse_op(self) -> Operation:
        result_names = []
        if self.kind() == "value":
            result_names.append(self.next())
            while self.accept(","):
                result_names.append(self.next())
            self.next("=")
        name = self.next()
        lookup(name)
        self.next("(")
        operands = []
        while not self.accept(")"):
            operands.append(self.use(self.next()))
            self.accept(",")
        attrs = self.parse_attrs() if self.peek() == "{" and self._attrs_follow() else {}
        types = []
        if result_names:
            self.next(":")
            types.append(self.parse_type())
            while self.accept(","):
                types.append(self.parse_type())
        op = Operation(name, operands, types, attrs)
        for result_name, result in zip(result_names, op.results, strict=True):
            if result_name in self.values:
                raise ParseError(f"{result_name} is defined twice")
            self.values[result_name] = result
        while self.peek() == "{":
            op.regions.append(self.parse_region(op))
        return op

    def _attrs_follow(self) -> bool:
        """`{` opens attributes when `word =` follows; otherwise it opens a region."""
        return self.tokens[self.pos + 1][0] == "word" and self.tokens[self.pos + 2][1] == "="

    def parse_region(self, owner: Operation) -> Region:
        self.next("{")
        self.next("^")
        self.next("(")
        args = []
        while not self.accept(")"):
            name = self.next()
            self.next(":")
            args.append(self.define(name, self.parse_type()))
            self.accept(",")
        self.next(":")
        block = Block(args, self.parse_block_body())
        self.next("}")
        region = Region([block])
        region.parent = owner
        return region

    def parse_kernel(self) -> Kernel:
        self.next("kernel")
        name = self.next()[1:]
        self.next("(")
        args = []
        while not self.accept(")"):
            arg_name = self.next()
            self.next(":")
            value = self.define(arg_name, self.parse_type())
            value.name = arg_name[1:]
            args.append(value)
            self.accept(",")
        attrs = {}
        if self.accept("attributes"):
            attrs = self.parse_attrs()
        self.next("{")
        body = Block([], self.parse_block_body())
        self.next("}")
        if self.peek() is not None:
            raise ParseError(f"unexpected text after the kernel: {self.peek()!r}")
        return Kernel(name, args, body, attrs)


def parse_kernel(text: str) -> Kernel:
    return _Parser(text).parse_kernel()


def copy_kernel(kernel: Kernel) -> Kernel:
    """A copy of `kernel` equal to `parse_kernel(print_kernel(kernel))`, made without the text: only
    kernel arguments keep names, attributes are rebuilt in key order with lists for tuples, and
    every type is the one its text parses to."""
    return _Copier().kernel(kernel)


class _Copier:
    _EXACT = (bool, int, float, str)  # read back as themselves; a subclass goes through the text

    def __init__(self):
        self.values: dict[Value, Value] = {}
        self.types: dict[object, Type] = {}
        # id(type) -> its copy: the source's types outlive the copy, so ids stay unique; saves
        # hashing and comparing a type (Python-level calls) for every value
        self.types_by_id: dict[int, Type] = {}

    def type(self, type_: Type) -> Type:
        copy = self.types_by_id.get(id(type_))
        if copy is None:
            copy = self.types.get(type_)
            if copy is None:
                copy = self.types[type_] = _Parser(str(type_)).parse_type()
            self.types_by_id[id(type_)] = copy
        return copy

    def attr(self, value: object) -> object:
        if value is None or type(value) in self._EXACT:
            return value
        if type(value) in (list, tuple):
            return [self.attr(v) for v in value]
        return _Parser(format_attr(value)).parse_attr_value()

    def attrs(self, attrs: dict) -> dict:
        if len(attrs) == 1:  # the common case (a constant's value), without sorting
            ((key, value),) = attrs.items()
            return {key: value if value is None or type(value) in self._EXACT else self.attr(value)}
        return {k: self.attr(attrs[k]) for k in sorted(attrs)}

    def define(self, value: Value) -> Value:
        copy = Value(self.type(value.type))
        self.values[value] = copy
        return copy

    def op(self, op: Operation) -> Operation:
        values = self.values
        try:
            operands = list(map(values.__getitem__, op.operands))
        except KeyError as error:
            value = error.args[0]
            raise ParseError(f"a value of type {value.type} is used before it is defined") from None
        attrs = self.attrs(op.attrs) if op.attrs else None
        results = op.results
        if len(results) == 1:  # the common case, without a comprehension's frame or a zip
            (result,) = results
            type_ = self.types_by_id.get(id(result.type)) or self.type(result.type)
            copy = Operation(op.name, operands, [type_], attrs)
            values[result] = copy.results[0]
        else:
            copy = Operation(op.name, operands, [self.type(r.type) for r in results], attrs)
            values.update(zip(results, copy.results, strict=True))
        for region in op.regions:
            blocks = [
                Block([self.define(a) for a in b.args], [self.op(o) for o in b.ops])
                for b in region.blocks
            ]
            copied_region = Region(blocks)
            copied_region.parent = copy
            copy.regions.append(copied_region)
        return copy

    def kernel(self, kernel: Kernel) -> Kernel:
        args = []
        for arg in kernel.args:
            copy = self.define(arg)
            copy.name = arg.name
            args.append(copy)
        body = Block([], [self.op(op) for op in kernel.body.ops])
        return Kernel(kernel.name, args, body, self.attrs(kernel.attrs))
