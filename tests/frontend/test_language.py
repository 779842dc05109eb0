"""The application language end to end: each ntl primitive, runtime `if`, conditional expressions,
`jit` annotations. Every kernel runs (Triton on the CPU) against torch with poisoned outputs."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Symbol, Tensor
from compiler.errors import CompileError

BLOCK = 16
SIZE = 37  # ragged: not a multiple of the block


def tiled(*tensors):
    return tuple(t.tile((BLOCK,)) if t.ndim else t for t in tensors)


def run(application, inputs, out_dtype=torch.float32, **kwargs):
    tensors = tuple(Tensor(x.ndim) if isinstance(x, torch.Tensor) else Tensor(0) for x in inputs)
    kernel = ninetoothed.make(tiled, application, (*tensors, Tensor(1)))
    out = torch.full((SIZE,), float("nan"), dtype=out_dtype)
    kernel(*inputs, out, **kwargs)
    return out


def positive(seed=0):
    return torch.rand(SIZE, generator=torch.Generator().manual_seed(seed)) + 0.5


def exp_app(x, out):
    out = ntl.exp(x)  # noqa: F841


def exp2_app(x, out):
    out = ntl.exp2(x)  # noqa: F841


def log_app(x, out):
    out = ntl.log(x)  # noqa: F841


def log2_app(x, out):
    out = ntl.log2(x)  # noqa: F841


def sqrt_app(x, out):
    out = ntl.sqrt(x)  # noqa: F841


def rsqrt_app(x, out):
    out = ntl.rsqrt(x)  # noqa: F841


def sigmoid_app(x, out):
    out = ntl.sigmoid(x - 1.0)  # noqa: F841


def abs_app(x, out):
    out = ntl.abs(x - 1.0)  # noqa: F841


def sin_cos_app(x, out):
    out = ntl.sin(x) * ntl.cos(x)  # noqa: F841


def power_app(x, out):
    out = x**2 + x**0.5  # noqa: F841


def min_max_app(x, out):
    out = ntl.minimum(x, 1.0) + ntl.maximum(x, 1.2)  # noqa: F841


def arange_app(x, out):
    out = x + ntl.arange(0, 16).to(ntl.float32)  # noqa: F841


def cast_app(x, out):
    tens = ntl.cast(x * 10.0, ntl.int32)
    out = ntl.cast(tens // 3, ntl.float32) + (x * 10.0).to(ntl.int32) % 3  # noqa: F841


@pytest.mark.parametrize(
    ("application", "reference"),
    [
        (exp_app, torch.exp),
        (exp2_app, torch.exp2),
        (log_app, torch.log),
        (log2_app, torch.log2),
        (sqrt_app, torch.sqrt),
        (rsqrt_app, torch.rsqrt),
        (sigmoid_app, lambda x: torch.sigmoid(x - 1.0)),
        (abs_app, lambda x: (x - 1.0).abs()),
        (sin_cos_app, lambda x: torch.sin(x) * torch.cos(x)),
        (power_app, lambda x: x**2 + x**0.5),
        (min_max_app, lambda x: torch.clamp(x, max=1.0) + torch.clamp(x, min=1.2)),
        (arange_app, lambda x: x + (torch.arange(SIZE) % BLOCK).float()),
        (
            cast_app,
            lambda x: (
                torch.div((x * 10).int(), 3, rounding_mode="floor").float() + (x * 10).int() % 3
            ),
        ),
    ],
)
def test_primitive(application, reference):
    x = positive()
    torch.testing.assert_close(run(application, [x]), reference(x), rtol=1e-5, atol=1e-5)


def runtime_if_app(x, flag, out):
    y = x
    if flag > 0:
        y = x * 2.0
    else:
        y = -x
    out = y  # noqa: F841


@pytest.mark.parametrize("flag", [1, -1])
def test_runtime_if_becomes_scf_if(flag):
    x = positive(1)
    out = run(runtime_if_app, [x, flag])
    torch.testing.assert_close(out, x * 2.0 if flag > 0 else -x)


def defined_in_both_branches(x, flag, out):
    if flag > 0:
        y, scale = x * 2.0, 3
    else:
        y, scale = -x, 0.5
    out = y * scale  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("flag", [1, -1])
def test_a_variable_both_branches_define_is_defined_after_the_if(backend, flag):
    """As Triton takes it: defined before the `if` or not, the `if` gives it (it said "name 'y'
    is not defined")."""
    x = positive(2)
    kernel = ninetoothed.make(
        tiled, defined_in_both_branches, (Tensor(1), Tensor(0), Tensor(1)), backend=backend
    )
    out = torch.full((SIZE,), float("nan"))
    kernel(x, flag, out)
    torch.testing.assert_close(out, x * 6.0 if flag > 0 else -x * 0.5)


SCALE = Symbol("SCALE", constexpr=True)


def constexpr_app(x, out):
    out = x * 3.0 if SCALE > 2 else x  # noqa: F841


def test_conditional_expression_on_a_constexpr_picks_one_branch():
    kernel = ninetoothed.make(
        lambda x, out: (x.tile((SCALE * 8,)), out.tile((SCALE * 8,))),
        constexpr_app,
        (Tensor(1), Tensor(1)),
    )
    x = positive(2)
    out = torch.full_like(x, float("nan"))
    kernel(x, out, SCALE=3)
    torch.testing.assert_close(out, x * 3.0)
    assert "select.where" not in kernel.ssa and "scf.if" not in kernel.ssa


def where_app(x, out):
    out = ntl.where(x > 1.0, x, 0.0) + (x if True else -x)  # noqa: F841


def test_where_with_python_scalars():
    x = positive(3)
    torch.testing.assert_close(run(where_app, [x]), torch.where(x > 1.0, x, 0.0) + x)


@ninetoothed.jit
def doubled(x: Tensor(1).tile((BLOCK,)), out: Tensor(1).tile((BLOCK,))):  # noqa: F821
    out = x * 2.0  # noqa: F841


def test_jit_annotation_style():
    x = positive(4)
    out = torch.full_like(x, float("nan"))
    doubled(x, out)
    torch.testing.assert_close(out, x * 2.0)
    assert "@triton.jit" in doubled.source and "scf" not in doubled.ssa


def test_a_lambda_application_is_refused_with_its_location():
    kernel = ninetoothed.make(tiled, lambda x, out: None, (Tensor(1), Tensor(1)))
    x = positive(5)
    with pytest.raises(CompileError, match=r"test_language.py:\d+: .* is not a `def` function"):
        kernel(x, torch.empty_like(x))


def offsets_first_app(x, output):
    inside = x.offsets(-1)[None, :] < x.source.shape[-1]
    output = ntl.sum(ntl.where(inside, x, 0.0), 1)  # noqa: F841


def test_offsets_before_any_load_names_the_tile_itself():
    block = Symbol("ROW_BLOCK", constexpr=True)
    kernel = ninetoothed.make(
        lambda x, output: (x.tile((1, block)), output.tile((1,))),
        offsets_first_app,
        (Tensor(2), Tensor(1)),
    )
    x = torch.randn(5, 45)
    out = torch.full((5,), float("nan"))
    kernel(x, out, ROW_BLOCK=64)
    torch.testing.assert_close(out, x.sum(1), rtol=1e-5, atol=1e-5)
