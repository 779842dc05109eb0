"""Tensor construction, names, view records, resolve over a symbolic domain, and user errors."""

import dataclasses

import numpy as np
import pytest

from compiler import dsl
from compiler.dsl import Symbol, Tensor, views
from compiler.dsl.evaluate import evaluate
from compiler.dsl.symbol import Const, Expr


def test_sources_get_unique_names_and_size_symbols():
    first, second = Tensor(2), Tensor(shape=(4, None))
    assert first.name != second.name and first.name.startswith("tensor_")
    assert first.shape == (Symbol(f"{first.name}_size_0"), Symbol(f"{first.name}_size_1"))
    assert second.shape == (4, Symbol(f"{second.name}_size_1"))
    assert first.source is first and first.view is None


def test_shape_options_configure_size_symbols():
    x = Tensor(2, shape_options=(None, {"constexpr": True, "upper_bound": 128}))
    assert not x.shape[0].constexpr
    assert x.shape[1].constexpr and x.shape[1].upper_bound == 128


def test_with_name_renames_a_source_and_its_size_symbols():
    x = Tensor(shape=(None, 8), shape_options={"constexpr": True}, other=0.0)
    renamed = x.with_name("input")
    assert renamed.name == "input"
    assert renamed.shape == (Symbol("input_size_0"), 8)
    assert renamed.shape[0].constexpr and renamed.other == 0.0
    arranged = renamed.tile((4, -1))
    assert arranged.name == "input" and arranged.source is renamed
    with pytest.raises(ValueError, match="source tensor"):
        arranged.with_name("other")


def test_constructor_errors():
    with pytest.raises(ValueError, match="jagged"):
        Tensor(2, jagged_dim=0)
    with pytest.raises(ValueError, match="ndim or shape"):
        Tensor()
    with pytest.raises(ValueError, match="zero-dimensional"):
        Tensor(2, constexpr=True)
    with pytest.raises(ValueError, match="constexpr=True"):
        Tensor(0, value=3)


def test_scalar_tensor():
    scale = Tensor(0, constexpr=True, value=2)
    assert scale.shape == () and scale.ndim == 0 and scale.constexpr and scale.value == 2


def test_tile_builds_view_records_and_levels():
    x = Tensor(shape=(10, 6))
    arranged = x.tile((4, -1), strides=(3, -1), dilation=(2, 1))
    inner = arranged.dtype
    assert arranged.view == views.TileOuter(x, (3, 6))
    assert inner.view == views.TileInner(x, (2, 1))
    assert arranged.shape == (2, 1) and inner.shape == (4, 6)
    assert arranged.levels() == [arranged, inner] and arranged.innermost() is inner
    with pytest.raises(dataclasses.FrozenInstanceError):
        arranged.view.strides = (1, 1)


def test_dtype_assignment_nests_levels():
    arranged = Tensor(2).tile((1, Symbol("b")))
    arranged.dtype = arranged.dtype.squeeze(0)
    assert isinstance(arranged.dtype.view, views.Squeeze)
    assert [level.ndim for level in arranged.levels()] == [2, 1]


def test_parameters_may_be_expressions():
    output = Tensor(2).tile((Symbol("m"), Symbol("n")))
    arranged = Tensor(2).tile((Symbol("m"), Symbol("k"))).tile((1, -1))
    arranged = arranged.expand((-1, output.shape[1]))
    assert arranged.shape[1] == output.shape[1]
    assert isinstance(arranged.shape[1], Expr)


def test_ravel_keeps_the_element_type():
    arranged = Tensor(2, dtype=dsl.float16).tile((2, 2)).ravel()
    assert arranged.dtype == "fp16" and arranged.ndim == 4


class ExprDomain:
    """Index maps over symbolic expressions: a load's address as an Expr."""

    def const(self, value):
        return Const(value)

    def expr(self, expr):
        return expr

    def add(self, left, right):
        return left + right

    def sub(self, left, right):
        return left - right

    def mul(self, left, right):
        return left * right

    def floordiv(self, left, right):
        return left // right

    def mod(self, left, right):
        return left % right

    def lt(self, left, right):
        return ("lt", left, right)

    def ge(self, left, right):
        return ("ge", left, right)

    def and_(self, left, right):
        return ("and", left, right)


def test_resolve_over_a_symbolic_domain():
    i, j, k = Symbol("i"), Symbol("j"), Symbol("k")
    x = Tensor(shape=(12, 5))
    arranged = x.tile((4, 5), strides=(2, -1)).squeeze(1)
    (row, column), mask = views.resolve(arranged, [(i,), (j, k)], ExprDomain())
    assert row == 2 * i + j and column == k
    assert ("lt", 2 * i + j, Const(12)) in flatten_mask(mask)


def flatten_mask(mask):
    if isinstance(mask, tuple) and mask[0] == "and":
        return flatten_mask(mask[1]) + flatten_mask(mask[2])
    return [mask]


def test_resolve_checks_the_index_vectors():
    arranged = Tensor(1).tile((2,))
    with pytest.raises(ValueError, match="one index vector per level"):
        views.resolve(arranged, [(0,)], ExprDomain())
    with pytest.raises(ValueError, match="needs 1 indices"):
        views.resolve(arranged, [(0,), (0, 1)], ExprDomain())


def test_resolve_of_a_scalar_checks_nothing():
    assert views.resolve(Tensor(0), [()], ExprDomain()) == ((), None)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda x: x.tile((2,)), "tile_shape .* has 1 entries .* 2 dimensions"),
        (lambda x: x.tile((2, 0)), "positive"),
        (lambda x: x.tile((2, 2), strides=(1,)), "strides"),
        (lambda x: x.squeeze(0), "size 4, not 1"),
        (lambda x: x.expand((8, -1)), "only size-1"),
        (lambda x: x.permute((0, 0)), "not a permutation"),
        (lambda x: x.flatten(1, 1), "selects no dimensions"),
        (lambda x: x.pad(((1, 1),)), "one \\(before, after\\) pair"),
        (lambda x: x.pad(((1, 1), (1,))), "pairs"),
        (lambda x: x[::0], "nonzero"),
    ],
)
def test_meta_operation_errors_say_what_to_write(build, message):
    with pytest.raises(ValueError, match=message):
        build(Tensor(shape=(4, 3)))


@pytest.mark.parametrize(
    ("key", "error", "message"),
    [
        ((0, 0, 0), IndexError, "names 3 dimensions"),
        ((..., ...), IndexError, "one Ellipsis"),
        (("a",), TypeError, "must be an int"),
        ((4,), IndexError, "out of range"),
    ],
)
def test_getitem_errors(key, error, message):
    with pytest.raises(error, match=message):
        Tensor(shape=(4, 3))[key]


def test_dimension_out_of_range():
    with pytest.raises(IndexError, match="out of range"):
        Tensor(2).unsqueeze(4)


def test_negative_int_index_counts_from_the_end():
    x = Tensor(shape=(4, 3))
    assert x[-1].view.parent.view == views.Slice(x, 0, 3, 1)


def test_dtypes_are_ninetoothed_strings():
    assert (dsl.float16, dsl.bfloat16, dsl.float32, dsl.int32, dsl.uint8) == (
        "fp16",
        "bf16",
        "fp32",
        "i32",
        "u8",
    )


def test_evaluate_reads_offsets_and_reports_bad_subs():
    x = Tensor(2)
    arranged = x.tile((2, 2))
    offsets = evaluate(arranged, {x: {"shape": (3, 2)}})
    assert offsets.shape == (2, 1, 2, 2)
    assert offsets[1, 0].tolist() == [[4, 5], [-1, -1]]
    with pytest.raises(ValueError, match=f"'{x.name}_size_0'"):
        evaluate(arranged)
    fixed = Tensor(shape=(3, 2))
    with pytest.raises(ValueError, match="fixed at 3"):
        evaluate(fixed, {fixed: {"shape": (4, 2)}})
    with pytest.raises(TypeError, match="source Tensors"):
        evaluate(arranged, {arranged: {"shape": (3, 2)}})


def test_subs_gives_symbols_and_sizes_values():
    """As NineToothed's: Symbols and source sizes become ints, and the result evaluates alone."""
    import ninetoothed

    results = []
    for lib in (dsl, ninetoothed):
        x, block = lib.Tensor(2), lib.Symbol("BLOCK", constexpr=True)
        fixed = lib.subs(x.tile((block, -1)), {x: {"shape": (10, 3)}, block: 4})
        assert [int(s) for s in fixed.shape] == [3, 1]
        assert [int(s) for s in fixed.dtype.shape] == [4, 3]
        results.append(fixed.eval())
    np.testing.assert_array_equal(*results)


def test_a_bare_size_where_a_shape_is_due_says_to_write_a_tuple():
    with pytest.raises(TypeError, match=r"not 4; write \(4, -1\) for instance"):
        Tensor(2).expand(4)
    with pytest.raises(TypeError, match=r"not 8; write \(8,\) for instance"):
        Tensor(1).tile(8)


def test_language_names_are_one_object_each():
    import compiler.dsl.language as ntl

    assert ntl.sum is ntl.sum and ntl.libdevice.pow is ntl.libdevice.pow
    assert ntl.sum is not ntl.max


def test_a_source_tensors_shape_may_be_set_and_keeps_its_own_symbols():
    """NineToothed lets a caller fix sizes after construction (`t.shape = t.shape[:-1] + (64,)`);
    the sizes left symbolic stay named after the tensor, also once make() renames it."""
    t = Tensor(4)
    t.shape = t.shape[:-1] + (64,)
    assert t.shape[-1] == 64 and t.source is t and t.ndim == 4
    renamed = t.with_name("q")
    assert [str(size) for size in renamed.shape] == ["q_size_0", "q_size_1", "q_size_2", "64"]
    assert t.tile((1, 1, 16, -1)).dtype.shape == (1, 1, 16, 64)
    with pytest.raises(ValueError, match="only a source tensor's shape may be set"):
        t.tile((1, 1, 16, -1)).shape = (1, 2, 3, 4)
