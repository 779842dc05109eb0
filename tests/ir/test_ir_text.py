"""The text form: printing round-trips through the parser, and bad IR fails with a clear message.
Cases are `roundtrip*.mlir` and `invalid*.mlir` beside this file: a change adds its own file of
cases (`roundtrip_<op>.mlir`), which is what an agent task lets a model create."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.errors import VerificationError
from compiler.ir import Builder, Kernel, ParseError, Value, parse_kernel, print_kernel, verify
from compiler.ir.core import Block
from compiler.ir.types import BufferType, ScalarType

HERE = Path(__file__).parent


def _sections(pattern: str) -> list:
    return [
        pytest.param(section, id=f"{path.stem}-{i}")
        for path in sorted(HERE.glob(pattern))
        for i, section in enumerate(path.read_text().split("// -----\n"))
    ]


def _strip_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("//"))


@pytest.mark.parametrize("text", _sections("roundtrip*.mlir"))
def test_print_parse_print_is_the_identity(text):
    source = _strip_comments(text)
    kernel = parse_kernel(source)
    verify(kernel)
    assert print_kernel(kernel) == source


@pytest.mark.parametrize("text", _sections("invalid*.mlir"))
def test_invalid_ir_is_rejected_with_the_expected_message(text):
    (expected,) = re.findall(r"^// expected-error: (.*)$", text, re.M)
    with pytest.raises((ParseError, VerificationError, KeyError, ValueError)) as caught:
        verify(parse_kernel(_strip_comments(text)))
    assert expected in str(caught.value)


def test_values_are_renumbered_in_order_of_definition():
    kernel = parse_kernel(
        "kernel @k(%x: f32) {\n"
        "  %scaled = arith.mul(%x, %x) : f32\n"
        "  %7 = arith.add(%scaled, %x) : f32\n"
        "}\n"
    )
    assert print_kernel(kernel) == (
        "kernel @k(%x: f32) {\n  %0 = arith.mul(%x, %x) : f32\n  %1 = arith.add(%0, %x) : f32\n}\n"
    )


def test_built_ir_prints_and_parses_back():
    x, n = Value(BufferType("f32"), "x"), Value(ScalarType("index"), "n")
    body = Block()
    b = Builder(body)
    offsets = b.value("tile.arange", size=16)
    mask = b.value("arith.cmp", offsets, b.broadcast_to(n, (16,)), pred="lt")
    value = b.value("mem.load", x, offsets, mask)
    b.create("mem.store", [x, offsets, b.value("math.exp", value), mask])
    kernel = Kernel("built", [x, n], body)
    verify(kernel)
    text = print_kernel(kernel)
    assert '%2 = arith.cmp(%0, %1) {pred = "lt"} : tile<i1[16]>' in text
    assert print_kernel(parse_kernel(text)) == text
