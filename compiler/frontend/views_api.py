"""What the application sees of a parameter besides its values: `x.shape`, `x.dtype`,
`x.source`, `x.offsets(dim)`, `value.to(dtype)`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compiler.dsl.tensor import Tensor


@dataclass(frozen=True)
class TensorInfo:
    """A level or the source of an arranged tensor, for its `shape`, `ndim` and `dtype`."""

    tensor: Tensor
    shape: tuple
    element_dtype: str  # NineToothed spelling, e.g. "fp16"
    pointer: object = None  # a source's `data_ptr()` (compiler/frontend/pointers.py)

    @property
    def ndim(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class BoundMethod:
    """`x.offsets`, `value.to`: called later with the user's arguments."""

    name: str
    call: Callable
