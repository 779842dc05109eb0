"""NineToothed's `Tensor`: a symbolic tensor and the meta-operations that arrange it.

A source tensor (one the user constructs) has a name and a shape whose unknown sizes are Symbols
`<name>_size_<i>`. Every meta-operation returns new Tensors whose `view` is a frozen record from
`views.py` naming the parent tensor(s) and the index map's parameters; nothing is a closure. A
tensor's `dtype` is either its element type or, for a hierarchical tensor, the Tensor of its next
level, and it may be reassigned (`arranged.dtype = arranged.dtype.squeeze(0)`).

Names: a source without a `name` gets a unique default `tensor_<n>`, and its size symbols are
named after it when it is built. Names and symbols are immutable, so a derived tensor's shapes and
view parameters stay valid. To give sources other names (the application's parameter names, say),
call `source.with_name(name)` before arranging: it returns a fresh source with that name, the
same options and size symbols named after the new name.

Sizes and meta-operation parameters may be ints or `Expr`s (Symbols such as block sizes, or sizes
of other tensors); shapes hold ints where a size is known and Exprs elsewhere.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from compiler.dsl import views
from compiler.dsl.arguments import (
    Size,
    check_count,
    normalize_dim,
    per_dim_options,
    require_positive,
)
from compiler.dsl.evaluate import evaluate
from compiler.dsl.substitute import substitute
from compiler.dsl.symbol import Const, Expr, Symbol, as_expr

_default_names = itertools.count()


class Tensor:
    """A symbolic tensor: a source the user passes in, or an arrangement derived from one."""

    def __init__(
        self,
        ndim: int | None = None,
        shape: Sequence[Size | None] | None = None,
        dtype: Any = None,
        jagged_dim: int | None = None,
        other: Any = None,
        shape_options: Mapping[str, Any] | Sequence[Mapping[str, Any] | None] | None = None,
        constexpr: bool | None = None,
        value: Any = None,
        name: str | None = None,
    ):
        if ndim is None and shape is None:
            raise ValueError("a Tensor needs ndim or shape, e.g. Tensor(2) or Tensor(shape=(4, 8))")
        if shape is None:
            shape = (None,) * ndim
        if ndim is not None and ndim != len(shape):
            raise ValueError(
                f"ndim={ndim} disagrees with shape {tuple(shape)} of {len(shape)} dimensions; "
                "pass only one of them"
            )
        if name is None:
            name = f"tensor_{next(_default_names)}"
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"tensor name {name!r} is not an identifier; use e.g. name='input'")
        if constexpr and len(shape) != 0:
            raise ValueError(
                f"constexpr is only for zero-dimensional tensors, not {len(shape)}-dimensional "
                "ones; use Tensor(0, constexpr=True)"
            )
        if value is not None and not constexpr:
            raise ValueError("value is only for constexpr tensors; add constexpr=True")
        if jagged_dim is not None and not 1 <= jagged_dim < len(shape):
            raise ValueError(
                f"jagged_dim={jagged_dim}: the ragged dimension is one after the batch (dimension "
                f"0) of a tensor of at least two, as in torch's jagged layout; write a jagged_dim "
                f"from 1 to {max(len(shape) - 1, 1)}"
            )

        self._init_options = {
            "shape": tuple(shape),
            "dtype": dtype,
            "other": other,
            "shape_options": per_dim_options(shape_options, len(shape)),
            "constexpr": constexpr,
            "value": value,
            "jagged_dim": jagged_dim,
        }
        self._name = name
        self._shape = tuple(
            _size(size) if size is not None else Symbol(f"{name}_size_{dim}", **options)
            for dim, (size, options) in enumerate(
                zip(shape, self._init_options["shape_options"], strict=True)
            )
        )
        self.dtype = dtype
        self.view: views.View | None = None
        self._source = self

    @classmethod
    def _derived(cls, view: views.View, shape: Sequence[Size], dtype: Any) -> Tensor:
        tensor = cls.__new__(cls)
        tensor._shape = tuple(_size(size) for size in shape)
        tensor.dtype = dtype
        tensor.view = view
        tensor._source = views.parents(view)[0].source
        return tensor

    def with_name(self, name: str) -> Tensor:
        """A fresh source tensor like this one, named `name`, with size symbols named after it."""
        if self.view is not None:
            raise ValueError(
                "with_name renames a source tensor; call it on the tensor you construct, "
                "before arranging it"
            )
        return Tensor(name=name, **self._init_options)

    @property
    def name(self) -> str:
        """The name of the source tensor this tensor arranges."""
        return self._source._name

    @property
    def shape(self) -> tuple[Size, ...]:
        return self._shape

    @shape.setter
    def shape(self, value: Sequence[Size | None]) -> None:
        """A source tensor's declared shape, replaced (NineToothed lets a caller fix some sizes:
        `t.shape = t.shape[:-1] + (64,)`); the sizes it names for itself stay symbolic."""
        if self.view is not None:
            raise ValueError(
                "only a source tensor's shape may be set: set it on the Tensor you construct, "
                "before arranging it"
            )
        value = tuple(value)
        own = [f"{self._name}_size_{d}" for d in range(len(value))]
        declared = tuple(
            None if isinstance(size, Symbol) and size.name == name else size
            for size, name in zip(value, own, strict=True)
        )
        options = dict(self._init_options, shape=declared)
        if len(value) != self.ndim:
            options["shape_options"] = None
        self.__dict__.update(Tensor(name=self._name, **options).__dict__, _source=self)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def source(self) -> Tensor:
        return self._source

    @property
    def other(self) -> Any:
        """The value read at masked positions (the source's)."""
        return self._source._init_options["other"]

    @property
    def constexpr(self) -> bool | None:
        return self._source._init_options["constexpr"]

    @property
    def value(self) -> Any:
        return self._source._init_options["value"]

    @property
    def jagged_dim(self) -> int | None:
        """The source's ragged dimension (a torch jagged nested tensor's), or None. Its size is
        the longest sequence's; each batch element's own length masks the rest."""
        return self._source._init_options["jagged_dim"]

    def levels(self) -> list[Tensor]:
        """This tensor, then its dtype, its dtype's dtype, ... while they are Tensors."""
        levels = [self]
        while isinstance(levels[-1].dtype, Tensor):
            if any(level is levels[-1].dtype for level in levels):
                raise ValueError("a tensor's dtype chain loops back to one of its own levels")
            levels.append(levels[-1].dtype)
        return levels

    def innermost(self) -> Tensor:
        return self.levels()[-1]

    def eval(self, subs: Mapping[Any, Any] | None = None):  # noqa: A003 - NineToothed's name
        """The source offsets each position reads (-1 where masked), as a numpy array; `subs`
        gives sizes (`{source: {"shape": ...}}`) and Symbols (`{BLOCK: 16}`)."""
        return evaluate(self, subs)

    def subs(self, subs: Mapping[Any, Any]) -> Tensor:
        """This arrangement with the sizes and Symbols in `subs` given values."""
        return substitute(self, subs)

    def __repr__(self) -> str:
        kind = "source" if self.view is None else type(self.view).__name__
        return f"Tensor({self.name}, shape={self.shape}, {kind})"

    def tile(
        self,
        tile_shape: Sequence[Size],
        strides: Sequence[Size] | None = None,
        dilation: Sequence[Size] | None = None,
        floor_mode: bool = False,
    ) -> Tensor:
        """Tile into a two-level tensor: the outer tensor of tiles, whose dtype is one tile.

        A tile size of -1 is the whole dimension; a stride of -1 is the tile size (no overlap).
        The outer size is ceil((size - dilation * (tile - 1) - 1) / stride) + 1 (floor_mode: floor).
        """
        if self.ndim == 0:  # a scalar has nothing to tile: NineToothed ignores the sizes given
            tile_shape, strides, dilation = (), None, None
        sizes = ", ".join(["BLOCK_SIZE"] + ["-1"] * (self.ndim - 1)) + "," * (self.ndim == 1)
        hint = f"e.g. tile(({sizes})) for this {self.ndim}-dimensional tensor"
        self._check_count("tile_shape", tile_shape, hint)
        strides = (-1,) * self.ndim if strides is None else tuple(strides)
        dilation = (1,) * self.ndim if dilation is None else tuple(dilation)
        self._check_count("strides", strides, "write -1 for a stride equal to the tile size")
        self._check_count("dilation", dilation, "write 1 for contiguous tiles")

        tiles, steps, outer_shape = [], [], []
        for dim, size in enumerate(self.shape):
            tile = size if tile_shape[dim] == -1 else tile_shape[dim]
            step = tile if strides[dim] == -1 else strides[dim]
            require_positive(
                tile, f"tile size of dimension {dim}", ", or -1 for the whole dimension"
            )
            require_positive(step, f"stride of dimension {dim}", ", or -1 for the tile size")
            require_positive(
                dilation[dim], f"dilation of dimension {dim}", " (1 for adjacent elements)"
            )
            span = as_expr(size) - as_expr(dilation[dim]) * (as_expr(tile) - 1) - 1
            quotient = span // step if floor_mode else (span + step - 1) // step
            tiles.append(tile)
            steps.append(_size(step))
            outer_shape.append(quotient + 1)

        inner = Tensor._derived(
            views.TileInner(self, tuple(_size(d) for d in dilation)), tiles, self.dtype
        )
        return Tensor._derived(views.TileOuter(self, tuple(steps)), outer_shape, inner)

    def expand(self, shape: Sequence[Size]) -> Tensor:
        """Broadcast size-1 dimensions to the sizes in `shape`; -1 keeps a dimension."""
        self._check_count("shape", shape, "write -1 for each dimension to keep")
        dims = tuple(dim for dim, new in enumerate(shape) if not _is_int(new, -1))
        for dim in dims:
            if isinstance(self.shape[dim], int) and self.shape[dim] != 1:
                raise ValueError(
                    f"expand: dimension {dim} has size {self.shape[dim]}, and only size-1 "
                    f"dimensions can be expanded; write -1 at position {dim} to keep it"
                )
        new_shape = [shape[dim] if dim in dims else size for dim, size in enumerate(self.shape)]
        return Tensor._derived(views.Expand(self, dims), new_shape, self.dtype)

    def squeeze(self, dim: int | Sequence[int]) -> Tensor:
        """Remove the size-1 dimension(s) `dim`."""
        dims = tuple(sorted({self._dim(d) for d in (dim if isinstance(dim, Sequence) else (dim,))}))
        for d in dims:
            if isinstance(self.shape[d], int) and self.shape[d] != 1:
                raise ValueError(
                    f"squeeze: dimension {d} of shape {self.shape} has size {self.shape[d]}, "
                    "not 1; squeeze only size-1 dimensions (index it, e.g. t[0], to pick one)"
                )
        new_shape = [size for d, size in enumerate(self.shape) if d not in dims]
        return Tensor._derived(views.Squeeze(self, dims), new_shape, self.dtype)

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a size-1 dimension at `dim` (negative counts from the end, as in torch)."""
        dim = normalize_dim(dim, self.ndim + 1, "unsqueeze")
        new_shape = (*self.shape[:dim], 1, *self.shape[dim:])
        return Tensor._derived(views.Unsqueeze(self, dim), new_shape, self.dtype)

    def permute(self, dims: Sequence[int]) -> Tensor:
        """Reorder dimensions: dimension `d` of the result is dimension `dims[d]` of this one."""
        normalized = tuple(self._dim(d) for d in dims)
        if sorted(normalized) != list(range(self.ndim)):
            raise ValueError(
                f"permute: {tuple(dims)} is not a permutation of the {self.ndim} dimensions; "
                f"name each of 0..{self.ndim - 1} once, e.g. {tuple(reversed(range(self.ndim)))}"
            )
        new_shape = [self.shape[d] for d in normalized]
        return Tensor._derived(views.Permute(self, normalized), new_shape, self.dtype)

    def flatten(self, start_dim: int | None = None, end_dim: int | None = None) -> Tensor:
        """Merge dimensions `start_dim` up to, but not including, `end_dim` (as in NineToothed,
        `end_dim` is exclusive; the defaults flatten everything)."""
        start, end, _ = slice(start_dim, end_dim).indices(self.ndim)
        if start >= end:
            raise ValueError(
                f"flatten(start_dim={start_dim}, end_dim={end_dim}) selects no dimensions of a "
                f"{self.ndim}-dimensional tensor; end_dim is exclusive, e.g. flatten(0, 2) merges "
                "dimensions 0 and 1"
            )
        merged = self.shape[start:end]
        strides = tuple(
            _size(math.prod(merged[i + 1 :], start=Const(1))) for i in range(len(merged))
        )
        new_shape = (*self.shape[:start], math.prod(merged, start=Const(1)), *self.shape[end:])
        return Tensor._derived(views.Flatten(self, start, strides), new_shape, self.dtype)

    def ravel(self) -> Tensor:
        """Flatten the hierarchy: one level whose dimensions are all levels' dimensions."""
        levels = tuple(self.levels())
        new_shape = [size for level in levels for size in level.shape]
        return Tensor._derived(views.Ravel(levels), new_shape, levels[-1].dtype)

    def pad(self, pad: Sequence[Sequence[Size]]) -> Tensor:
        """Pad each dimension by `(before, after)`; padded positions are masked."""
        hint = "give one (before, after) pair per dimension, e.g. ((0, 0), (1, 1))"
        self._check_count("pad", pad, hint)
        if any(len(pair) != 2 for pair in pad):
            raise ValueError(f"pad: {tuple(pad)} is not all (before, after) pairs; {hint}")
        new_shape = [size + as_expr(b) + a for size, (b, a) in zip(self.shape, pad, strict=True)]
        before = tuple(_size(b) for b, _ in pad)
        return Tensor._derived(views.Pad(self, before), new_shape, self.dtype)

    def __getitem__(self, key: Any) -> Tensor:
        """Index like NineToothed: ints pick (and drop) a dimension, slices select a range
        (not clamped: positions past the end are masked), None inserts a size-1 dimension and
        one Ellipsis stands for the dimensions not named."""
        key = key if isinstance(key, tuple) else (key,)
        if key.count(Ellipsis) > 1:
            raise IndexError("only one Ellipsis (...) is allowed in an index")
        named = len(key) - key.count(None) - key.count(Ellipsis)
        if named > self.ndim:
            raise IndexError(
                f"index {key} names {named} dimensions but the tensor of shape {self.shape} has "
                f"{self.ndim}"
            )
        result, dim = self, 0
        for item in key:
            if item is Ellipsis:
                dim += self.ndim - named
            elif item is None:
                result, dim = result.unsqueeze(dim), dim + 1
            elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
                start = result._index_start(dim, int(item))
                result = result._slice(dim, start, _size(as_expr(start) + 1), 1).squeeze(dim)
            elif isinstance(item, slice):
                result, dim = result._slice(dim, item.start, item.stop, item.step), dim + 1
            else:
                raise TypeError(
                    f"index {item!r} must be an int, a slice, None or ..., "
                    f"not {type(item).__name__}"
                )
        return result

    def _index_start(self, dim: int, index: int) -> Size:
        size = self.shape[dim]
        if isinstance(size, int) and not -size <= index < size:
            raise IndexError(
                f"index {index} is out of range for dimension {dim} of size {size}; "
                f"use an index in [{-size}, {size})"
            )
        return _size(size + as_expr(index)) if index < 0 else index

    def _slice(self, dim: int, start: Size | None, stop: Size | None, step: int | None) -> Tensor:
        step = 1 if step is None else step
        if not isinstance(step, int) or step == 0:
            raise ValueError(f"slice step {step!r} must be a nonzero int, e.g. t[::2] or t[::-1]")
        size = self.shape[dim]
        if start is None:
            start = 0 if step > 0 else _size(as_expr(size) - 1)
        elif isinstance(start, int) and start < 0:
            start = _size(size + as_expr(start))
        if stop is None:
            stop = size if step > 0 else -1
        elif isinstance(stop, int) and (stop < 0 if step > 0 else stop < -1):
            stop = _size(size + as_expr(stop))
        if _is_int(start, 0) and step == 1 and as_expr(stop) == as_expr(size):
            return self
        # NineToothed's `(stop - start + step + 1) // step` for a negative step, divided by a
        # positive one: the grid is built from it, whose `//` the IR computes on sizes >= 0.
        if step > 0:
            new_size = (as_expr(stop) - start + step - 1) // step
        else:
            new_size = (as_expr(start) - stop - step - 1) // -step
        new_shape = [new_size if d == dim else s for d, s in enumerate(self.shape)]
        return Tensor._derived(views.Slice(self, dim, _size(start), step), new_shape, self.dtype)

    def _dim(self, dim: int) -> int:
        return normalize_dim(dim, self.ndim, "dimension")

    def _check_count(self, what: str, values: Sequence[Any], hint: str) -> None:
        check_count(self.shape, what, values, hint)


def _size(value: Size) -> Size:
    """A size as stored in a shape: an int when known, else an Expr."""
    expr = as_expr(value)
    return expr.value if isinstance(expr, Const) else expr


def _is_int(value: Any, number: int) -> bool:
    return isinstance(value, int | Expr) and value == number
