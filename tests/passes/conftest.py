"""Fixtures for pass tests: a stand-in Target record and the numpy reference interpreter of the IR
(`compiler.ir.interpreter`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from compiler.ir import OPS
from compiler.ir.interpreter import run_kernel


@dataclass(frozen=True)
class StandInTarget:
    """The attributes passes may read from a backend Target record."""

    name: str = "stand-in"
    legal_ops: frozenset = frozenset(OPS)
    memory_scopes: dict = field(default_factory=lambda: {"global": "global"})
    capabilities: dict = field(default_factory=dict)
    operand_dtypes: dict = field(default_factory=dict)  # op -> the dtypes it takes; default all

    def capability(self, name: str, default: object = None) -> object:
        return self.capabilities.get(name, default)

    def accepts(self, op_name: str, dtype: str) -> bool:
        return op_name in self.legal_ops and dtype in self.operand_dtypes.get(op_name, (dtype,))


@pytest.fixture
def make_target():
    def make(illegal=(), operand_dtypes=None, **capabilities) -> StandInTarget:
        unknown = (set(illegal) | set(operand_dtypes or ())) - set(OPS)
        assert not unknown, f"not registered ops: {unknown}"
        legal = frozenset(OPS) - set(illegal)
        return StandInTarget(
            legal_ops=legal, capabilities=capabilities, operand_dtypes=operand_dtypes or {}
        )

    return make


@pytest.fixture
def interpret():
    return run_kernel
