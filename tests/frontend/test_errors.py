"""User mistakes are reported at file:line of the user's program, with what to write instead."""

import pytest
import torch
from triton.language.extra import libdevice

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.dsl import Tensor
from compiler.errors import CompileError
from compiler.frontend.build import ArgSpec, build_kernel


def tiled(x, y):
    return x.tile((16,)), y.tile((16,))


def build(application):
    tensors = (Tensor(1).with_name("x"), Tensor(1).with_name("y"))
    specs = [ArgSpec("tensor", "f32")] * 2
    return build_kernel("k", application, tiled(*tensors), specs, {})


def while_on_a_tile(x, y):
    while x:
        y = x  # noqa: F841


def tile_if(x, y):
    if x > 0:
        y = x  # noqa: F841


def unknown_name(x, y):
    y = x + undefined_name  # noqa: F821, F841


def spread_tile(x, y):
    y = ntl.maximum(*x, x)  # noqa: F841


def spread_keywords(x, y):
    y = ntl.exp(x, **y)  # noqa: F841


def padded_full(x, y):
    y = x + ntl.sum(ntl.full((17,), 1.0, dtype=ntl.float32))  # noqa: F841


def padded_arange(x, y):
    y = x + ntl.sum(ntl.arange(0, 12))  # noqa: F841


def float_bits(x, y):
    y = x ^ x  # noqa: F841


def unsupported_primitive(x, y):
    # Triton's language has cbrt; this compiler does not (the cbrt skill evals count on that).
    y = ntl.cbrt(x)  # noqa: F841


def unsupported_libdevice_function(x, y):
    y = libdevice.erfc(x)  # noqa: F841


@pytest.mark.parametrize(
    ("application", "message"),
    [
        (while_on_a_tile, "`while` needs a scalar condition; reduce a tile to one first"),
        (tile_if, "for tiles use ntl.where"),
        (unknown_name, "'undefined_name' is not defined"),
        (unsupported_primitive, "ntl.cbrt is not supported by this compiler yet"),
        # named as the program spells it, not as ntl.erfc
        (unsupported_libdevice_function, "libdevice.erfc is not supported by this compiler yet"),
        (
            spread_tile,
            "*x is a value of the program; a call can spread only a tuple or list known at compile",
        ),
        (spread_keywords, "**y is a value of the program; a call can spread only a dict"),
        # A shape rounded up to a power of two would add elements a sum counts (17 became 32).
        (padded_full, "ntl.full with shape (17,): 17 is not a power of two"),
        (padded_arange, "ntl.arange(0, 12) with shape (12,): 12 is not a power of two"),
        (float_bits, "expects integer or boolean operands, got tile<f32[16]>; cast to an integer"),
    ],
)
def test_error_names_file_and_line(application, message):
    with pytest.raises(CompileError) as info:
        build(application)
    error = info.value
    assert error.filename == __file__
    lines = open(__file__).read().splitlines()
    assert application.__name__ in "".join(lines[error.line - 3 : error.line])
    assert message in str(error)


def test_missing_constexpr_is_named():
    symbol = ninetoothed.Symbol("ROW", constexpr=True)
    handle = ninetoothed.make(
        lambda x, y: (x.tile((symbol,)), y.tile((symbol,))),
        lambda x, y: None,
        (Tensor(1), Tensor(1)),
    )
    with pytest.raises(CompileError, match="ROW"):
        handle.compile_declared()


def copied(x, y):
    y = x  # noqa: F841


def test_a_tensor_of_a_dtype_the_compiler_lacks_is_refused_with_the_ones_it_takes():
    kernel = ninetoothed.make(tiled, copied, (Tensor(1), Tensor(1)), backend="triton")
    x = torch.zeros(16, dtype=torch.complex64)
    with pytest.raises(
        CompileError, match=r"x has dtype torch.complex64; convert it to one of .*float8_e5m2"
    ):
        kernel(x, torch.zeros(16))


def test_an_application_without_source_text_is_refused_with_the_fix():
    namespace: dict = {}
    exec("def typed_at_a_prompt(x, y):\n    y = x\n", namespace)  # no file holds its text
    kernel = ninetoothed.make(tiled, namespace["typed_at_a_prompt"], (Tensor(1), Tensor(1)))
    with pytest.raises(CompileError, match=r"source of typed_at_a_prompt is not available.*\.py"):
        kernel(torch.zeros(16), torch.zeros(16))


def named_like_a_size(x, x_size_0):
    x = x_size_0  # noqa: F841


def test_a_parameter_named_like_another_tensors_size_argument_is_refused():
    tensors = (Tensor(1).with_name("x"), Tensor(1).with_name("x_size_0"))
    with pytest.raises(
        CompileError, match=r"test_errors.py:\d+: .*parameter 'x_size_0' .*rename the parameter"
    ):
        build_kernel("k", named_like_a_size, tiled(*tensors), [ArgSpec("tensor", "f32")] * 2, {})


def too_many_sizes(x, y):
    return x.tile((16, 16)), y.tile((16,))


def zero_sized(x, y):
    return x.tile((0,)), y.tile((16,))


@pytest.mark.parametrize(
    ("arrangement", "message"),
    [
        (too_many_sizes, "e.g. tile((BLOCK_SIZE,)) for this 1-dimensional tensor"),
        (zero_sized, "tile size of dimension 0 is 0; it must be a positive int"),
    ],
)
def test_an_arrangement_mistake_is_located_at_its_line(arrangement, message):
    with pytest.raises(CompileError) as info:
        ninetoothed.make(arrangement, copied, (Tensor(1), Tensor(1)))
    error = info.value
    assert error.filename == __file__
    assert "x.tile((" in open(__file__).read().splitlines()[error.line - 1]
    assert message in str(error)
