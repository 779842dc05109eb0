"""The SSA IR: closed op registry, structured control flow, verifier, printer and parser."""

from compiler.ir.builder import Builder, broadcast_shape
from compiler.ir.core import Block, Kernel, Operation, Region, Value
from compiler.ir.parser import ParseError, parse_kernel
from compiler.ir.printer import print_kernel
from compiler.ir.registry import OPS, OpDef, lookup
from compiler.ir.types import BufferType, ScalarType, TileType, value_type
from compiler.ir.verifier import verify

__all__ = [
    "OPS",
    "Block",
    "Builder",
    "BufferType",
    "Kernel",
    "OpDef",
    "Operation",
    "ParseError",
    "Region",
    "ScalarType",
    "TileType",
    "Value",
    "broadcast_shape",
    "lookup",
    "parse_kernel",
    "print_kernel",
    "value_type",
    "verify",
]
