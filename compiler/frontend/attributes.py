"""Attributes in an application: a parameter's (`x.shape`, `x.source`, `x.offsets(d)`,
`x.data_ptr()`), a tile's (`x.dtype`, `x.T`, Triton's tensor methods), a nested level's, and
those of modules and compile-time objects."""

from __future__ import annotations

import ast
from types import ModuleType

from compiler.dsl.dtype import DType
from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError
from compiler.frontend.access import TensorRef
from compiler.frontend.context import KernelContext
from compiler.frontend.dtypes import DSL_TO_IR
from compiler.frontend.foreign_language import as_language
from compiler.frontend.pointers import Pointer
from compiler.frontend.primitives import PRIMITIVES, call_primitive
from compiler.frontend.views_api import BoundMethod, TensorInfo
from compiler.ir.core import Value


class AttributeLowerer:
    ctx: KernelContext

    def expr_Attribute(self, node: ast.Attribute) -> object:
        return self.attribute(self.expr(node.value), node.attr)

    def attribute(self, obj: object, attr: str) -> object:
        accessor = self.ctx.accessor
        if isinstance(obj, TensorRef):
            return self.tensor_attribute(obj, attr)
        if isinstance(obj, TensorInfo):
            if attr == "dtype":
                nested = obj.tensor.dtype
                if isinstance(nested, Tensor):
                    return TensorInfo(nested, accessor.shape_of(nested), obj.element_dtype)
                return obj.element_dtype
            if attr == "data_ptr":
                if obj.pointer is None:
                    raise CompileError(
                        "only x.source has a data pointer: write x.source.data_ptr()"
                    )
                return BoundMethod("data_ptr", lambda: obj.pointer)
            if attr == "stride" and obj.pointer is not None:
                return BoundMethod("stride", lambda dim: obj.pointer.param.strides[dim])
            return getattr(obj, attr)
        if isinstance(obj, Value):
            return self.tile_attribute(obj, attr)
        try:
            found = getattr(obj, attr)
        except AttributeError:
            raise CompileError(f"{describe(obj)} has no attribute {attr!r}") from None
        return as_language(found) if isinstance(obj, ModuleType) else found

    def tile_attribute(self, tile: Value, attr: str) -> object:
        """`x.dtype`, `x.shape`, `x.T`, and Triton's tensor methods (`x.to(...)`, `x.sum(...)`)."""
        arith = self.ctx.arith
        if attr == "dtype":
            return DType(element_name(tile.type.dtype))
        if attr == "shape":
            return tile.type.shape
        if attr == "T":
            return call_primitive(arith, "trans", [tile], {})
        name = "cast" if attr == "to" else attr
        if name not in PRIMITIVES:
            raise CompileError(
                f"a tile has no attribute {attr!r}; it has .dtype, .shape, .T, .to(dtype) and the "
                "ntl functions as methods (x.sum(axis), x.max(axis), ...)"
            )
        return BoundMethod(
            attr, lambda *args, **kwargs: call_primitive(arith, name, [tile, *args], kwargs)
        )

    def tensor_attribute(self, ref: TensorRef, attr: str) -> object:
        param, accessor = ref.param, self.ctx.accessor
        element = element_name(param.dtype)
        level = param.levels[ref.level()]
        if attr == "shape":
            return accessor.application_shape(param, level)
        if attr == "ndim":
            return level.ndim
        if attr == "dtype":
            nested = level.dtype
            if isinstance(nested, Tensor):
                return TensorInfo(nested, accessor.application_shape(param, nested), element)
            return element
        if attr == "source":
            source = param.arranged.source
            shape = accessor.application_shape(param, source)
            return TensorInfo(source, shape, element, Pointer(param))
        if attr == "offsets":
            return BoundMethod("offsets", lambda dim=None: accessor.offsets(ref, dim))
        if attr == "stride":
            return BoundMethod("stride", lambda dim: param.strides[dim])
        if attr == "data_ptr":  # NineToothed's: a parameter the arrangement left as it is
            if param.arranged is not param.arranged.source:
                raise CompileError(
                    f"{param.name} is arranged, and only a source tensor has a data pointer: "
                    f"write {param.name}.source.data_ptr()"
                )
            return BoundMethod("data_ptr", lambda: Pointer(param))
        if attr == "T" or attr in PRIMITIVES or attr == "to":  # Triton's tensor methods
            return self.tile_attribute(self.operand(ref), attr)
        raise CompileError(
            f"{param.name} has no attribute {attr!r}; a parameter has .shape, .ndim, .dtype, "
            ".source, .offsets(dim), .stride(dim) and, left as it is, .data_ptr()"
        )


def element_name(ir_dtype: str) -> DType:
    return DType({v: k for k, v in DSL_TO_IR.items()}.get(ir_dtype, ir_dtype))


def describe(obj: object) -> str:
    return getattr(obj, "__qualname__", None) or type(obj).__name__
