"""Op conformance: every elementwise op of the registry, built from its registry entry alone, run
on a backend and on the IR interpreter (compiler/conformance/). What it found so far is fixed here
(the interpreter's idiv of INT_MIN, type rules wider than the ops' meaning) or named below."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from compiler.backends import TARGETS
from compiler.conformance import conform, forms, testable_ops
from compiler.errors import VerificationError
from compiler.ir import parse_kernel, verify
from compiler.ir.interpreter import run_kernel
from compiler.ir.registry import OPS

# Open, found by this check: the IR does not define arithmetic on i1 the same way everywhere.
# Triton's i1 is a one-bit integer (True + True wraps to False) where the interpreter's numpy
# bools and C's bool give True; TVM's LLVM build rejects i1 arithmetic (its max, min and
# compares are spelled as or, and and int8 compares, which it builds).
KNOWN = {("arith.add(i1, i1) -> i1", "triton")}
KNOWN |= {(f"{op}(i1, i1) -> i1", "tvm") for op in ("arith.add", "arith.mul")}


def test_every_elementwise_op_is_testable_from_its_registry_entry():
    ops = testable_ops()
    assert {"arith.add", "arith.cmp", "arith.cast", "math.exp", "select.where", "scan.sum"} <= set(
        ops
    )
    assert all(any(forms(OPS[op])) for op in ops)


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("op", testable_ops())
def test_every_backend_matches_the_interpreter(op, backend):
    """A failure names each new mismatch: the op's form, the backend, the first element that
    differs (got, want, operands), as `conform` words it."""
    mismatches = conform(op, [backend])
    expected = {k for k in KNOWN if k[0].startswith(op + "(") and k[1] == backend}
    new = [str(m) for m in mismatches if (str(m.form), m.backend) not in expected]
    assert not new, "\n".join(new)
    assert {(str(m.form), m.backend) for m in mismatches} == expected  # a known one went away


def test_a_wrong_spelling_is_named_with_its_op_backend_and_element(monkeypatch):
    from compiler.backends import registry

    triton = registry.DEVICE_TARGETS["triton", "cpu"]
    wrong = dataclasses.replace(triton, spelling={**triton.spelling, "arith.sub": "({0} + {1})"})
    monkeypatch.setitem(registry.DEVICE_TARGETS, ("triton", "cpu"), wrong)
    (mismatch, *_) = conform("arith.sub", ["triton"])
    assert str(mismatch).startswith("arith.sub(f32, f32) -> f32 on triton: element ")
    assert "got" in str(mismatch) and "want" in str(mismatch) and "operands" in str(mismatch)


def test_integer_division_of_the_smallest_int_truncates():
    kernel = parse_kernel(
        next(f for f in forms(OPS["arith.idiv"]) if f.operands == ("i32", "i32")).kernel_text()
    )
    a = np.array([-(2**31), -7, 7, -1], np.int32)
    b = np.array([7, 2, -2, 3], np.int32)
    out = np.zeros(4, np.int32)
    run_kernel(kernel, {"a0": a, "a1": b, "out": out, "n": 4})
    assert out.tolist() == [-306783378, -3, -3, 0]


@pytest.mark.parametrize(
    "op, dtype",
    [("arith.idiv", "f32"), ("arith.irem", "f16"), ("arith.div", "i32"), ("arith.not", "i32")],
)
def test_type_rules_refuse_what_the_op_does_not_mean(op, dtype):
    text = next(f for f in forms(OPS["arith.add"]) if f.operands == ("f32", "f32")).kernel_text()
    arity = OPS[op].operands[0]
    text = text.replace("f32", dtype).replace(
        "arith.add(%va0, %va1)", f"{op}({', '.join(['%va0', '%va1'][:arity])})"
    )
    with pytest.raises(VerificationError):
        verify(parse_kernel(text))
