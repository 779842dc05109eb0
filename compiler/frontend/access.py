"""Loads, stores and `offsets` through an arranged tensor.

A parameter of the application is one program's element of the outermost level. Indexing walks the
middle levels; using the value loads the innermost tile. A tensor the arrangement does not tile
(`x`, `x[slices]`: one level) is, as in NineToothed, its own outermost level with a tile of one
element: program i takes element i. Every access goes through the view maps of
`compiler.dsl.views` (one generic `resolve`), so address arithmetic and masks are plain `arith` ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.dsl import views
from compiler.dsl.symbol import Expr
from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError
from compiler.frontend.arith import saturated
from compiler.frontend.index_domain import Index, IndexDomain
from compiler.frontend.symbols import bind, tile_dim
from compiler.ir.builder import broadcast_shape
from compiler.ir.core import Value
from compiler.ir.types import TileType, is_integer


@dataclass(eq=False)
class Param:
    """An application parameter bound to an arranged tensor and its kernel arguments."""

    name: str
    arranged: Tensor
    dtype: str  # IR dtype of the elements
    buffer: Value | None  # None for scalar parameters
    strides: list[Value] = field(default_factory=list)
    scalar: Value | None = None  # the value of a scalar (`Tensor(0)`) parameter
    last_access: list[list[Index]] | None = None
    offsets: Value | None = None  # a jagged tensor's sequence starts (torch's `offsets()`)

    @property
    def levels(self) -> list[Tensor]:
        return self.arranged.levels()


@dataclass(frozen=True, eq=False)
class TensorRef:
    """`x`, `x[k]`, ...: a parameter with some middle-level indices chosen."""

    param: Param
    indices: tuple = ()

    def level(self) -> int:
        """The level whose shape `x.shape` reports: the first one not fully indexed."""
        remaining = len(self.indices)
        for level, tensor in enumerate(self.param.levels[1:], 1):
            if remaining < tensor.ndim or level == len(self.param.levels) - 1:
                return level
            remaining -= tensor.ndim
        return len(self.param.levels) - 1


class Accessor:
    """Emits the index math of loads, stores and `offsets` for one kernel."""

    def __init__(self, domain: IndexDomain, constexprs: dict[str, int]):
        self.domain = domain
        self.b = domain.arith.b
        self.constexprs = constexprs
        # Parameters the application stores to as their own tiles (not through `.source` or a
        # data pointer): the tiles the launch checks every program covers.
        self.tile_written: set[str] = set()

    def tile_shape(self, param: Param) -> tuple:
        if len(param.levels) == 1:  # untiled: one element per program
            return ()
        return tuple(tile_dim(s, self.constexprs) for s in param.levels[-1].shape)

    def level_indices(self, ref: TensorRef) -> list[list[Index]]:
        levels = ref.param.levels
        if len(levels) == 1:
            if ref.indices:
                raise CompileError(
                    f"{ref.param.name} is not tiled, so each program has one element of it and "
                    f"nothing to index; arrange it with .tile(...) to give programs blocks"
                )
            return [self.program_indices(levels[0])]
        middle = levels[1:-1]
        expected = sum(t.ndim for t in middle)
        inner = levels[-1].ndim
        if not expected <= len(ref.indices) <= expected + inner:
            raise CompileError(
                f"{ref.param.name} needs {expected} index(es) for its middle levels before it can "
                f"be loaded or stored (and at most {inner} more into its tile), got "
                f"{len(ref.indices)}; write {ref.param.name}[i] for each"
            )
        result = [self.program_indices(levels[0])]
        flat = list(ref.indices)
        for tensor in middle:
            result.append(flat[: tensor.ndim])
            flat = flat[tensor.ndim :]
        result.append(self.tile_indices(ref.param, flat))
        return result

    def program_indices(self, outer: Tensor) -> list[Index]:
        indices = []
        remaining: Index = self.domain.program_id
        sizes = [self.domain.expr(s) for s in outer.shape]
        for dim in range(len(sizes)):
            inner = 1
            for size in sizes[dim + 1 :]:
                inner = self.domain.mul(inner, size)
            indices.append(self.domain.floordiv(remaining, inner))
            remaining = self.domain.mod(remaining, inner)
        return indices

    def tile_indices(self, param: Param, fixed: list) -> list[Index]:
        """Each tile dim's index: `fixed` ones (NineToothed's `x[0]` into the tile) first, then a
        range over each dim left, shaped to the tile that remains."""
        shape = self.tile_shape(param)[len(fixed) :]
        result = list(fixed)
        for axis, size in enumerate(shape):
            index = self.b.value("tile.arange", size=size)
            for _ in range(axis):
                index = self.b.value("tile.expand_dims", index, axis=0)
            for _ in range(axis + 1, len(shape)):
                index = self.b.value("tile.expand_dims", index, axis=len(index.type.shape))
            self.domain.tile_range(index, size)
            result.append(index)
        return result

    def address(self, ref: TensorRef) -> tuple[Value, Value | None, tuple]:
        """(offsets, mask or None, tile shape) of the tile `ref` names."""
        level_indices = self.level_indices(ref)
        ref.param.last_access = level_indices
        source_indices, mask = views.resolve(ref.param.arranged, level_indices, self.domain)
        offsets: Index = 0
        for index, stride in zip(source_indices, ref.param.strides, strict=True):
            offsets = self.domain.add(offsets, self.domain.mul(index, stride))
        fixed = ref.indices[_middle_count(ref.param) :]
        shape = self.tile_shape(ref.param)[len(fixed) :]
        indexed = [i.type for i in fixed if isinstance(i, Value) and i.type.shape]
        if indexed:  # `x[offsets]` with a tile of indices: the access takes their shape
            shape = broadcast_shape(*([TileType("index", shape)] if shape else []), *indexed)
        arith = self.domain.arith
        offsets = self.b.broadcast_to(arith.cast(arith.as_value(offsets), "index"), shape)
        mask = (
            None
            if mask is None or mask is True
            else self.b.broadcast_to(arith.as_value(mask), shape)
        )
        if ref.param.offsets is not None:
            return (*self.sequence(ref.param, source_indices, offsets, mask), shape)
        return offsets, mask, shape

    def sequence(self, param: Param, source_indices: list, offsets: Value, mask: Value | None):
        """A jagged tensor: batch element b's sequence starts at position offsets[b] of the
        values along the ragged dimension and ends before offsets[b + 1]; positions past its end
        are masked (the ragged dimension's size is the longest sequence's)."""
        arith, shape = self.domain.arith, offsets.type.shape

        def index(i: Index) -> Value:
            return self.b.broadcast_to(arith.cast(arith.as_value(i), "index"), shape)

        ragged = param.arranged.source.jagged_dim
        batch, position = index(source_indices[0]), index(source_indices[ragged])
        guard = [] if mask is None else [mask]

        start = self.sequence_start(param, batch, guard)
        following = arith.binary("arith.add", batch, 1)
        length = arith.binary("arith.sub", self.sequence_start(param, following, guard), start)
        inside = arith.compare("lt", position, length)
        offsets = arith.binary(
            "arith.add", offsets, arith.binary("arith.mul", start, param.strides[ragged])
        )
        return offsets, inside if mask is None else arith.binary("arith.and", mask, inside)

    def sequence_start(self, param: Param, batch: Value, guard: list[Value]) -> Value:
        """Where batch element `batch`'s sequence starts in the values (torch's `offsets()`)."""
        attrs = {"other": 0} if guard else {}
        read = self.b.create("mem.load", [param.offsets, batch, *guard], attrs)
        return self.domain.arith.cast(read.result, "index")

    def sequence_length(self, param: Param) -> Value:
        """The length of the sequence this program works on: the one its first element of
        `param` is in (NineToothed's `seq_len`, from the outermost level's batch index)."""
        levels = param.levels
        first = [self.program_indices(levels[0]), *([0] * t.ndim for t in levels[1:])]
        source_indices, _ = views.resolve(param.arranged, first, self.domain)
        arith = self.domain.arith
        batch = arith.cast(arith.as_value(source_indices[0]), "index")
        start = self.sequence_start(param, batch, [])
        end = self.sequence_start(param, arith.binary("arith.add", batch, 1), [])
        return arith.binary("arith.sub", end, start)

    def application_shape(self, param: Param, tensor: Tensor) -> tuple:
        """`tensor`'s shape as the application reads it (`x.shape`, `x.source.shape`, ...): a
        jagged tensor's ragged size is the program's own sequence length there, as in NineToothed,
        while its index maps keep the longest (the grid) and mask each sequence's end."""
        shape = self.shape_of(tensor)
        source = param.arranged.source
        ragged = source.shape[source.jagged_dim] if param.offsets is not None else None
        if not isinstance(ragged, Expr):
            return shape
        length = {ragged.name: self.sequence_length(param)}
        return tuple(
            self.domain.expr_where(size, length)
            if isinstance(size, Expr) and ragged in size.free_symbols()
            else size
            for size in shape
        )

    def load(self, ref: TensorRef) -> Value:
        if ref.param.scalar is not None:
            return ref.param.scalar
        offsets, mask, _ = self.address(ref)
        other = ref.param.arranged.source.other
        if isinstance(other, float) and is_integer(ref.param.dtype):  # `-inf` for a max, on ints
            other = saturated(other, ref.param.dtype)
        attrs = {} if other is None or mask is None else {"other": other}
        operands = [ref.param.buffer, offsets] + ([mask] if mask is not None else [])
        return self.b.create("mem.load", operands, attrs).result

    def store(self, ref: TensorRef, value: Value) -> None:
        if ref.param.buffer is None:
            raise CompileError(f"{ref.param.name} is a scalar parameter and cannot be assigned")
        offsets, mask, shape = self.address(ref)
        arith = self.domain.arith
        value = arith.cast(arith.as_value(value), ref.param.dtype)
        value = self.b.broadcast_to(value, shape)
        operands = [ref.param.buffer, offsets, value] + ([mask] if mask is not None else [])
        self.b.create("mem.store", operands)
        self.tile_written.add(ref.param.name)

    def offsets(self, ref: TensorRef, dim: int | None) -> Index:
        """`x.offsets()`: the memory offsets of the tile `x` names; `x.offsets(dim)`: its source
        indices along `dim`, or, when `x` still needs middle-level indices, of the last tile of `x`
        accessed (as NineToothed)."""
        param = ref.param
        if dim is None:  # NineToothed: the tile's element offsets in memory
            return self.address(ref)[0]
        if len(ref.indices) >= _middle_count(param):
            param.last_access = self.level_indices(ref)
        if param.last_access is None:
            raise CompileError(
                f"{param.name}.offsets() needs the tile's indices: write {param.name}[i].offsets"
                f"({dim}), or load {param.name}[i] first"
            )
        source_indices, _ = views.resolve(param.arranged, param.last_access, self.domain)
        index = source_indices[dim]
        if not isinstance(index, Value):
            return index
        # NineToothed's index along one dimension is 1-D: the tile's extent there ((1,) where
        # the tile has one element along it), not broadcast to the tile's rank
        varying = [d for d in index.type.shape if d != 1]
        if len(varying) <= 1 and len(index.type.shape) > 1:
            return self.b.value("tile.reshape", index, shape=varying or [1])
        return index

    def shape_of(self, tensor: Tensor) -> tuple:
        return tuple(bind(s, self.constexprs) for s in tensor.shape)


def _middle_count(param: Param) -> int:
    """How many indices the middle levels of `param` take."""
    return sum(t.ndim for t in param.levels[1:-1])
