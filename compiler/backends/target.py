"""A backend as data: the ops it accepts, how it spells them, and a few capability numbers.

Passes ask a `Target` what it accepts (`has`, `accepts`, `capability`), never which backend it is.
The shared emitter (`compiler/backends/emitter.py`) spells every op from `spelling` and lays out
statements with `syntax`; nothing else about a backend lives in code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from compiler.backends.syntax import Syntax
from compiler.passes.hardware_dependent.lower_tiles_to_loops.lower_tiles_to_loops import LOWERED_OPS


@dataclass(frozen=True)
class OpText:
    """What a spelling sees of one op: operand names and attributes, already spelled.

    A format-string spelling is filled with `text.format(*args, **fields)`; a callable spelling
    receives the whole record (for the few ops whose text has optional parts).
    """

    args: tuple[str, ...]
    attrs: Mapping[str, object]  # the op's attributes as the IR holds them
    # each attribute spelled, plus result_dtype, result_shape and the program's num_warps
    fields: Mapping[str, str]
    operand_dtypes: tuple[str, ...] = ()  # the IR element types of the operands


Spelling = str | Callable[[OpText], str]


class Unspellable(Exception):
    """Raised by a callable spelling for a form of its op the backend's language lacks: the
    emitter reports it with the op's place."""

    def __init__(self, problem: str, fix: str):
        super().__init__(problem)
        self.problem, self.fix = problem, fix


def spelled(spelling: Spelling, text: OpText) -> str:
    """The text of one op from its spelling, a format string or a callable."""
    return spelling(text) if callable(spelling) else spelling.format(*text.args, **text.fields)


def loop_lowered_ops(capabilities: Mapping[str, object]) -> frozenset[str]:
    """Ops a target takes without spelling them, because the loop-level passes remove them before
    emission given these capabilities: without tile values, the tile ops that
    `ssa.lower_tiles_to_loops` knows become loops; `scf.parallel` becomes serial or thread loops
    unless the target spells it (`ssa.lower_parallel`); program ids become the `scf.grid` index
    where programs are a loop (`ssa.wrap_grid`)."""
    ops = set()
    if not capabilities.get("value_semantics", True):
        ops |= LOWERED_OPS
    if capabilities.get("parallel", "native") != "native":
        ops.add("scf.parallel")
    if capabilities.get("program_ids", "launch") == "loop":
        ops.add("index.program_id")
    return frozenset(ops)


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Target:
    name: str  # the backend (language)
    device: str  # where its output runs: "cpu" or "cuda"
    legal_ops: frozenset[str]
    spelling: Mapping[str, Spelling]
    dtype_spelling: Mapping[str, str]
    memory_scopes: Mapping[str, str]
    syntax: Syntax
    capabilities: Mapping[str, object] = field(default_factory=dict)
    operand_dtypes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Ops spelled as a whole declaration statement (e.g. an array in C); their spelling gets `name`.
    declaring_ops: frozenset[str] = frozenset()
    # How a record that indexes in fewer bits (`index_bits`) spells 64-bit offsets, for launches
    # whose offsets do not fit: the `index` dtype's spelling ("index"), and the op spellings
    # ("spelling") and syntax fields ("syntax") that change with it. Empty: no such form.
    wide_index: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tables = ("spelling", "dtype_spelling", "memory_scopes", "capabilities", "operand_dtypes")
        tables += ("wide_index",)
        for name in tables:
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        legal = self.legal_ops | loop_lowered_ops(self.capabilities)
        object.__setattr__(self, "legal_ops", frozenset(legal))

    def widened(self) -> Target | None:
        """This record computing offsets in 64 bits: itself where it does, None where it cannot."""
        if self.capability("index_bits", 64) >= 64:
            return self
        if not self.wide_index:
            return None
        wide = self.wide_index
        return dataclasses.replace(
            self,
            dtype_spelling={**self.dtype_spelling, "index": wide["index"]},
            spelling={**self.spelling, **wide.get("spelling", {})},
            syntax=dataclasses.replace(self.syntax, **wide.get("syntax", {})),
            capabilities={**self.capabilities, "index_bits": 64},
            wide_index={},
        )

    def has(self, op_name: str) -> bool:
        """Whether the backend accepts `op_name` natively (else a pass must decompose it)."""
        return op_name in self.legal_ops

    def accepts(self, op_name: str, dtype: str) -> bool:
        """Whether a legal op accepts operands of `dtype` (else a pass must convert them)."""
        allowed = self.operand_dtypes.get(op_name)
        return self.has(op_name) and (allowed is None or dtype in allowed)

    def capability(self, name: str, default: object = None) -> object:
        return self.capabilities.get(name, default)

    def dtype(self, ir_dtype: str) -> str:
        try:
            return self.dtype_spelling[ir_dtype]
        except KeyError:
            raise KeyError(f"target {self.name!r} has no spelling for dtype {ir_dtype!r}") from None
