"""The Triton Target record: data only, consistent with the op registry, asked by capability."""

from __future__ import annotations

import pytest

from compiler.backends import TARGETS, get_target
from compiler.backends.emitter import STRUCTURED_OPS
from compiler.backends.triton import TARGET as TRITON
from compiler.ir import OPS
from compiler.ir.types import DTYPES, FP8_DTYPES


def test_every_spelled_op_is_registered_and_legal():
    assert set(TRITON.spelling) <= set(OPS)
    assert TRITON.legal_ops == frozenset(TRITON.spelling) | STRUCTURED_OPS


def test_ops_left_to_passes_are_not_legal():
    assert not TRITON.has("math.pow")
    assert not TRITON.has("index.meta")
    assert TRITON.has("linalg.dot") and TRITON.has("scf.for")


def test_every_ir_dtype_has_a_spelling():
    """fp8 aside: ssa.emulate_narrow_floats makes it bytes before emission (Triton lists no
    fp8_dtypes)."""
    assert not TRITON.capability("fp8_dtypes")
    spelled = {d: TRITON.dtype(d) for d in DTYPES if d not in FP8_DTYPES}
    assert spelled["index"] == "tl.int32"
    with pytest.raises(KeyError, match="'triton' has no spelling for dtype 'f8'"):
        TRITON.dtype("f8")


def test_operand_dtypes():
    assert TRITON.accepts("math.exp", "f32")
    assert not TRITON.accepts("math.exp", "f16")  # tl.exp takes fp32/fp64 only
    assert TRITON.accepts("math.abs", "f16")
    assert TRITON.accepts("arith.add", "bf16")
    assert not TRITON.accepts("math.pow", "f32")


def test_capabilities():
    assert TRITON.capability("dot_min") == 16
    assert TRITON.capability("power_of_two_tiles") is True
    assert TRITON.capability("value_semantics") is True
    assert TRITON.capability("shared_memory") is False
    assert TRITON.capability("no_such_capability", 3) == 3


def test_record_is_immutable():
    with pytest.raises(TypeError):
        TRITON.spelling["arith.add"] = "{0} - {1}"
    with pytest.raises(AttributeError):
        TRITON.name = "other"


def test_registry():
    assert get_target("triton") is TRITON is TARGETS["triton"]
    assert get_target("triton", "cuda").device == "cuda"
    with pytest.raises(KeyError, match=r"is unknown \(known: .*triton"):
        get_target("fortran")
    with pytest.raises(KeyError, match=r"has targets for \['cpu', 'cuda'\] only"):
        get_target("triton", "tpu")
