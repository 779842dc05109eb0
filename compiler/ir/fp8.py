"""The two fp8 formats (torch's float8_e4m3fn and float8_e5m2, Triton's float8e4nv and float8e5):
their fields, and rounding to them by torch's own conversion (the reference the emulation in
`ssa.emulate_narrow_floats` is tested against).

e4m3fn has no infinities: its one NaN per sign has every exponent and mantissa bit set, and values
beyond its largest finite (448) saturate to it. e5m2 is IEEE-like: infinities, and values from
half an ulp above its largest finite (57344) round to infinity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class Fp8Format:
    exponent_bits: int
    mantissa_bits: int
    bias: int
    has_infinity: bool
    torch_dtype: torch.dtype


FORMATS = {
    "f8e4m3fn": Fp8Format(4, 3, 7, False, torch.float8_e4m3fn),
    "f8e5m2": Fp8Format(5, 2, 15, True, torch.float8_e5m2),
}


def rounded(values: object, dtype: str) -> torch.Tensor:
    """`values` (numbers or an array) rounded to `dtype`, as a torch tensor of it, same shape."""
    flat = torch.from_numpy(np.array(values, np.float32, ndmin=1))
    return flat.to(FORMATS[dtype].torch_dtype).reshape(np.shape(values))


def to_bits(values: object, dtype: str) -> np.ndarray:
    """The fp8 codes (bytes) nearest `values`."""
    return rounded(values, dtype).view(torch.uint8).numpy()


def from_bits(bits: object, dtype: str) -> np.ndarray:
    """The f32 values of fp8 codes (bytes)."""
    codes = torch.from_numpy(np.array(bits, ndmin=1).astype(np.uint8))
    return codes.view(FORMATS[dtype].torch_dtype).float().numpy().reshape(np.shape(bits))
