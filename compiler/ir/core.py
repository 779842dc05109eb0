"""The IR's data structures: values, operations, blocks, regions and the kernel.

Structured control flow only: `scf.for`, `scf.while` and `scf.if` own regions of one block each;
loop-carried values are block arguments, region results leave through `scf.yield`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from compiler.ir.types import Type


class Value:
    """An SSA value: a kernel argument, a block argument or an op result."""

    __slots__ = ("type", "name", "owner")

    def __init__(self, type_: Type, name: str | None = None, owner: object = None):
        self.type = type_
        self.name = name
        self.owner = owner

    def __repr__(self) -> str:
        return f"Value({self.name or id(self)}: {self.type})"


class Operation:
    __slots__ = ("name", "operands", "results", "attrs", "regions", "parent")

    def __init__(
        self,
        name: str,
        operands: list[Value],
        result_types: list[Type],
        attrs: dict | None = None,
        regions: list[Region] | None = None,
    ):
        self.name = name
        self.operands = list(operands)
        if len(result_types) == 1:  # the common case, without a comprehension's own frame
            self.results = [Value(result_types[0], None, self)]
        else:
            self.results = [Value(t, None, self) for t in result_types]
        self.attrs = dict(attrs) if attrs else {}
        self.regions = list(regions) if regions else []
        self.parent: Block | None = None
        for region in self.regions:
            region.parent = self

    @property
    def result(self) -> Value:
        try:
            (value,) = self.results  # unpacking checks the count as fast as it gets
        except ValueError:
            raise ValueError(f"{self.name} has {len(self.results)} results, not one") from None
        return value

    def walk(self) -> Iterator[Operation]:
        """This op, then every op nested in its regions, in program order."""
        yield self
        if self.regions:
            yield from _walk_regions(self.regions)

    def __repr__(self) -> str:
        return f"Operation({self.name})"


def _walk_regions(regions: list[Region]) -> Iterator[Operation]:
    """`Operation.walk` below an op, lazily as it is, with a generator per region-holding op only
    (not one per op)."""
    for region in regions:
        for block in region.blocks:
            for op in block.ops:
                yield op
                if op.regions:
                    yield from _walk_regions(op.regions)


@dataclass(eq=False)
class Block:
    args: list[Value] = field(default_factory=list)
    ops: list[Operation] = field(default_factory=list)
    parent: Region | None = None

    def __post_init__(self) -> None:
        for arg in self.args:
            arg.owner = self
        for op in self.ops:
            op.parent = self

    def append(self, op: Operation) -> Operation:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Operation) -> Operation:
        op.parent = self
        self.ops.insert(index, op)
        return op

    @property
    def terminator(self) -> Operation | None:
        return self.ops[-1] if self.ops and self.ops[-1].name == "scf.yield" else None


@dataclass(eq=False)
class Region:
    blocks: list[Block] = field(default_factory=list)
    parent: Operation | None = None

    def __post_init__(self) -> None:
        for block in self.blocks:
            block.parent = self

    @property
    def block(self) -> Block:
        return self.blocks[0]


@dataclass(eq=False)
class Kernel:
    """One compute kernel: named arguments and a body block run by every program of the grid."""

    name: str
    args: list[Value]
    body: Block
    attrs: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for arg in self.args:
            arg.owner = self

    def walk(self) -> Iterator[Operation]:
        for op in list(self.body.ops):
            yield op
            if op.regions:
                yield from _walk_regions(op.regions)

    def arg(self, name: str) -> Value:
        for value in self.args:
            if value.name == name:
                return value
        raise KeyError(f"kernel @{self.name} has no argument %{name}")

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for op in self.walk():
            counts[op.name] = counts.get(op.name, 0) + 1
        return dict(sorted(counts.items()))

    def replace_uses(self, old: Value, new: Value) -> None:
        # No use lists: every op is visited, so stay off the recursive generator of `walk`.
        blocks = [self.body]
        while blocks:
            for op in blocks.pop().ops:
                if old in op.operands:  # identity: Value defines no __eq__
                    op.operands = [new if v is old else v for v in op.operands]
                for region in op.regions:
                    blocks.extend(region.blocks)

    def uses(self) -> dict[Value, int]:
        """How many operand slots read each value."""
        counts: dict[Value, int] = {}
        for op in self.walk():
            for value in op.operands:
                counts[value] = counts.get(value, 0) + 1
        return counts
