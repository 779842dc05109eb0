"""Mixed-dtype arithmetic meets at the dtype Triton's own semantics picks, for every pair of
tensor dtypes, with and without division (Triton computes a division of halves in f32)."""

import itertools

import pytest
import torch
import triton.language as tl
from triton.language.semantic import TritonSemantic

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError
from compiler.frontend.arith import Arith
from compiler.frontend.dtypes import promote
from compiler.ir import Block, Builder, ScalarType, Value

TRITON = {
    "i1": tl.int1,
    **{f"i{b}": getattr(tl, f"int{b}") for b in (8, 16, 32, 64)},
    **{f"u{b}": getattr(tl, f"uint{b}") for b in (8, 16, 32, 64)},
    "f16": tl.float16,
    "bf16": tl.bfloat16,
    "f32": tl.float32,
    "f64": tl.float64,
    "f8e4m3fn": tl.float8e4nv,
    "f8e5m2": tl.float8e5,
}
SEMANTIC = TritonSemantic.__new__(TritonSemantic)  # the type rules use no builder


def triton_type(a: str, b: str, div_or_mod: bool) -> str | None:
    try:
        chosen = SEMANTIC.computation_type_impl(TRITON[a], False, TRITON[b], False, div_or_mod)
    except TypeError:  # e.g. dividing integers of different signedness: Triton refuses
        return None
    return next(name for name, dtype in TRITON.items() if dtype == chosen)


@pytest.mark.parametrize("div_or_mod", [False, True])
def test_promotion_is_tritons(div_or_mod):
    for a, b in itertools.product(TRITON, repeat=2):
        expected = triton_type(a, b, div_or_mod)
        if expected is not None:
            assert promote(a, b, div_or_mod) == expected, (a, b, div_or_mod)


@pytest.mark.parametrize("op", ["arith.div", "arith.idiv", "arith.irem"])
def test_dividing_integers_of_different_signedness_is_refused_as_triton_does(op):
    integers = [d for d in TRITON if d.startswith(("i", "u"))]
    for a, b in itertools.product(integers, repeat=2):
        if a == b == "i1" and op != "arith.div":  # bools have no integer division to take
            continue
        arith = Arith(Builder(Block()))
        left, right = Value(ScalarType(a)), Value(ScalarType(b))
        if triton_type(a, b, div_or_mod=True) is None:
            with pytest.raises(CompileError, match="Triton refuses integers of different"):
                arith.binary(op, left, right)
        else:
            arith.binary(op, left, right)


def halves(x, y, out):
    out = x / y  # noqa: F841


def test_dividing_halves_rounds_once_in_f32():
    """floor(a / b) on f16 tensors: the quotient is not rounded to f16 before the floor."""
    a = torch.tensor([-1.283203125, -1.3271484375, 0.32373046875]).half()
    b = torch.tensor([0.032073974609375, -0.01264190673828125, -0.0020618438720703125]).half()
    out = torch.full((3,), float("nan"))
    arrangement = lambda *ts: tuple(t.tile((4,)) for t in ts)  # noqa: E731
    ninetoothed.make(arrangement, halves, (Tensor(1), Tensor(1), Tensor(1)))(a, b, out)
    assert torch.equal(out.floor(), torch.div(a.float(), b.float(), rounding_mode="floor"))


def blocks(x, y, BLOCK=16):
    return x.tile((BLOCK,)), y.tile((BLOCK,))


def bools_with_ints(x, y):
    y = (x + 5) * 10 + (x < 3) * 100 + x * 7 - (x == 1)  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
def test_a_python_int_with_bools_computes_in_i32_as_triton(backend):
    """A Python int does not take a bool tile's type (Triton's kinds: an int outranks a bool), so
    `mask + 5` is 6 or 5, not a bool."""
    kernel = ninetoothed.make(blocks, bools_with_ints, (Tensor(1), Tensor(1)), backend=backend)
    x = torch.rand(37) > 0.5
    y = torch.full((37,), -99, dtype=torch.int32)
    kernel(x, y)
    i = x.int()
    assert torch.equal(y, (i + 5) * 10 + (i < 3).int() * 100 + i * 7 - (i == 1).int())


def below_minus_one(x, y):
    y = x < -1  # noqa: F841


@pytest.mark.parametrize("dtype", [torch.uint32, torch.uint64])
def test_a_negative_number_where_the_math_is_unsigned_is_refused(dtype):
    kernel = ninetoothed.make(blocks, below_minus_one, (Tensor(1), Tensor(1)), backend="triton")
    with pytest.raises(CompileError, match=r"-1 with u\d+ values: the operation computes in"):
        kernel(torch.arange(4).to(dtype), torch.zeros(4, dtype=torch.bool))
