"""Mixed-dtype arithmetic meets at the dtype Triton's own semantics picks, for every pair of
tensor dtypes, with and without division (Triton computes a division of halves in f32)."""

import itertools

import pytest
import torch
import triton.language as tl
from triton.language.semantic import TritonSemantic

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
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


class _TypesOnly(TritonSemantic):
    """Triton's rules for a Python number beside a tile, its constant made as its type alone."""

    def scalar_constant(self, value, dtype):
        return dtype


NUMBERS = [0, 1, -1, 127, 128, -129, 255, 256, 32768, -32769, 65536, 2**31, -(2**31) - 1]
NUMBERS += [2**32 - 1, 2**32, 2**63 - 1, -(2**63), True, 1.5]


def test_a_python_number_beside_a_tile_is_typed_or_refused_as_triton_does():
    """Each tile dtype with each number, on either side: Triton's computation type, or its
    refusal (`Scalar ... is out of range`, a negative number with an unsigned tile)."""
    rules = _TypesOnly.__new__(_TypesOnly)
    for (name, dtype), number in itertools.product(TRITON.items(), NUMBERS):
        chosen = rules.computation_type_impl(
            dtype, False, rules.to_tensor_type(number), True, False
        )
        try:
            expected = next(
                n for n, d in TRITON.items() if d == rules._cast_to_computation_type(number, chosen)
            )
        except ValueError:
            expected = None
        for operands in ((Value(ScalarType(name)), number), (number, Value(ScalarType(name)))):
            arith = Arith(Builder(Block()))
            if expected is None:
                with pytest.raises(CompileError, match="Triton refuses it"):
                    arith.binary("arith.add", *operands)
            else:
                assert arith.binary("arith.add", *operands).type.dtype == expected, (name, number)


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
    with pytest.raises(CompileError, match=r"-1 with u\d+ values: .* no negative numbers"):
        kernel(torch.arange(4).to(dtype), torch.zeros(4, dtype=torch.bool))


def low_word(x, y):
    y = x & 0xFFFFFFFF  # noqa: F841


def scaled(x, y):
    y = ntl.where(x > 3, x * 300, 0)  # noqa: F841


@pytest.mark.parametrize(
    ("application", "dtype", "message"),
    [
        (
            low_word,
            torch.int32,
            r":\d+: 4294967295 with i32 values: .* \[-2147483648, 2147483647\]",
        ),
        (scaled, torch.uint8, r":\d+: 300 with u8 values: .* \[0, 255\]"),
    ],
)
def test_a_python_int_past_the_integer_tiles_type_is_refused(application, dtype, message):
    """As Triton 3.9 (`Scalar ... is out of range`): the number takes the tile's type, and no
    wider one is chosen for it; the message names the program's line and the cast to write."""
    kernel = ninetoothed.make(blocks, application, (Tensor(1), Tensor(1)), backend="triton")
    with pytest.raises(CompileError, match=message + r".*cast the tile to a wider type"):
        kernel(torch.arange(4).to(dtype), torch.zeros(4, dtype=torch.int64))
