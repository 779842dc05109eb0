"""fp8 storage (torch's float8_e4m3fn and float8_e5m2) on every backend, against torch bit for bit:
every code decoded, f32 values encoded (ties, subnormals, overflow, infinities, NaN), and math on
fp8 tiles computed in f32 with each result rounded back, as Triton does. Outputs are poisoned."""

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.ir import Kernel, parse_kernel
from compiler.ir.interpreter import run_kernel
from compiler.passes import PassError

FORMATS = {"f8e4m3fn": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2}
LANGUAGE = {"f8e4m3fn": ntl.float8e4nv, "f8e5m2": ntl.float8e5}
SPECIALS = [0.0, -0.0, float("inf"), -float("inf"), float("nan"), -float("nan"), 1e-30, -1e-30]
SPECIALS += [448.0, 464.0, 465.0, 480.0, 1e6, 57344.0, 61439.0, 61440.0, 2.0**-10, 2.0**-17]
SPECIALS += [2.0**-16 * 1.5, 2.0**-9 * 2.5, 2.0**-9 * 3.5, 1.0625, 1.1875, 1.125, -0.3]


def arrange(x, out):
    return x.tile((64,)), out.tile((64,))


def copy(x, out):
    out = x  # noqa: F841


def encode_inputs(seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    scales = torch.tensor([1e-6, 1e-3, 0.1, 1.0, 30.0, 1e3, 1e5]).repeat_interleave(60)
    return torch.cat([torch.randn(len(scales), generator=g) * scales, torch.tensor(SPECIALS)])


def run(application, backend, x, out):
    kernel = ninetoothed.make(
        arrange, application, (Tensor(1), Tensor(1)), backend=backend, device="cpu"
    )
    kernel(x, out)
    return out


def same_bits(got: torch.Tensor, expected: torch.Tensor) -> None:
    if got.dtype in FORMATS.values():
        got, expected = got.view(torch.uint8), expected.view(torch.uint8)
    elif got.is_floating_point():
        torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)
        return
    mismatched = (got != expected).nonzero().flatten()[:5].tolist()
    assert not mismatched, [(i, got[i].item(), expected[i].item()) for i in mismatched]


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("dtype", sorted(FORMATS))
def test_every_code_decodes_as_torchs(dtype, backend):
    codes = torch.arange(256, dtype=torch.uint8).view(FORMATS[dtype])
    out = torch.full((256,), 1234.5)
    same_bits(run(copy, backend, codes, out), codes.float())


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("dtype", sorted(FORMATS))
def test_f32_values_encode_as_torchs(dtype, backend):
    x = encode_inputs(seed=len(dtype))
    out = torch.full(x.shape, 0x7F, dtype=torch.uint8).view(FORMATS[dtype])
    same_bits(run(copy, backend, x, out), x.to(FORMATS[dtype]))


def scaled_sum(x, out):
    y = x * 1.5 + x.to(ntl.float32)
    out = (y.to(out.dtype) - 0.25) * x  # noqa: F841


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("dtype", sorted(FORMATS))
def test_math_on_fp8_computes_in_f32_and_rounds_each_result(dtype, backend):
    f8 = FORMATS[dtype]
    x = (encode_inputs(seed=3)[:400] * 0.01).to(f8)

    def rounded(t):
        return t.to(f8).float()

    scaled = rounded(x.float() * 1.5)  # fp8 * a Python float stays fp8
    y = scaled + x.float()  # fp8 + f32 meets at f32
    expected = rounded(rounded(rounded(y) - 0.25) * x.float()).to(f8)
    out = torch.full(x.shape, 0x7F, dtype=torch.uint8).view(f8)
    same_bits(run(scaled_sum, backend, x, out), expected)


def test_the_language_has_tritons_fp8_names():
    assert ntl.float8e4nv.is_fp8() and ntl.float8e5.primitive_bitwidth == 8
    assert not ntl.float16.is_fp8()


def test_fp8_programs_interpret_as_torch_rounds():
    """The reference interpreter keeps fp8 values as f32 rounded to the format."""
    kernel = _cast_kernel("f8e5m2")
    x = torch.tensor([0.3, 70000.0, -1e-7, 2.5], dtype=torch.float32)
    out = torch.zeros(4, dtype=torch.uint8)
    run_kernel(kernel, {"x": x.numpy(), "out": out.numpy()}, grid=1)
    same_bits(out, x.to(torch.float8_e5m2).view(torch.uint8))


def _cast_kernel(dtype: str) -> Kernel:
    """out[i] = bitcast(x[i] as fp8, u8): the interpreter's rounding and bits, on four values."""
    text = f"""
kernel @cast(%x: buffer<f32>, %out: buffer<u8>) {{
  %i = tile.arange() {{size = 4}} : tile<index[4]>
  %v = mem.load(%x, %i) : tile<f32[4]>
  %c = arith.cast(%v) {{dtype = "{dtype}"}} : tile<{dtype}[4]>
  %b = arith.bitcast(%c) {{dtype = "u8"}} : tile<u8[4]>
  mem.store(%out, %i, %b)
}}
"""
    return parse_kernel(text)


def shifted(x, s, out):
    out = x + s  # noqa: F841


def test_an_fp8_scalar_argument_is_refused_with_the_fix():
    def arrangement(x, s, out):
        return x.tile((64,)), s, out.tile((64,))

    kernel = ninetoothed.make(
        arrangement,
        shifted,
        (Tensor(1), Tensor(0, dtype=ntl.float8e5), Tensor(1)),
        backend="triton",
        device="cpu",
    )
    x = torch.zeros(64, dtype=torch.float8_e5m2)
    with pytest.raises(
        PassError, match="ssa.emulate_narrow_floats.*f8e5m2 scalar, .* pass it as an f32"
    ):
        kernel(x, 1.0, torch.empty_like(x))
