"""Arguments for a conformance kernel: edge values first, then random ones, over a ragged length.

The first operand takes every edge value of its type; the others take values where every op of
the registry is defined on integers (1 to 7: no division by zero, no shift past the width). Float
operands meet every pair of edge values: the first runs through each edge value in turn while the
second runs through them all (NaN against a number, infinity against zero, -0.0 against 0.0). A
selection's `i1` operand alternates.
"""

from __future__ import annotations

import numpy as np
import torch

LENGTH = 300  # four full tiles of 64 and a ragged one: the edge pairs, then random values
NUMPY = {
    "f32": np.float32,
    "f16": np.float16,
    "f64": np.float64,
    "i32": np.int32,
    "i1": np.bool_,
    "u8": np.uint8,
    "i64": np.int64,
}
TORCH = {
    "f32": torch.float32,
    "f16": torch.float16,
    "f64": torch.float64,
    "i32": torch.int32,
    "i1": torch.bool,
    "u8": torch.uint8,
    "i64": torch.int64,
}
_FLOAT_EDGES = (
    0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 1e-3, -7.0, 100.0,
    float("inf"), float("-inf"), float("nan"), 1e-30, 60000.0,
)  # fmt: skip
_INT_EDGES = (0, 1, -1, 2, -2, 7, -7, 100, -100, 12345, -54321)  # and each type's least and most


def arguments(operands: tuple[str, ...], seed: int) -> list[np.ndarray]:
    generator = np.random.default_rng(seed)
    return [_values(dtype, first=i == 0, generator=generator) for i, dtype in enumerate(operands)]


def _values(dtype: str, first: bool, generator) -> np.ndarray:
    if dtype == "i1":
        return generator.integers(0, 2, LENGTH).astype(np.bool_)
    if dtype in ("i32", "u8", "i64"):
        limits = np.iinfo(NUMPY[dtype])
        inside = [v for v in _INT_EDGES if limits.min <= v <= limits.max]
        edges = [*inside, int(limits.min), int(limits.max)] if first else []
        low, high = (max(-1000, limits.min), min(1000, limits.max)) if first else (1, 8)
        rest = generator.integers(low, high, LENGTH - len(edges))
        return np.concatenate([np.array(edges, np.int64), rest]).astype(NUMPY[dtype])
    count = len(_FLOAT_EDGES)
    edges = np.repeat(_FLOAT_EDGES, count) if first else np.tile(_FLOAT_EDGES, count)
    rest = generator.standard_normal(LENGTH - len(edges)) * 4
    return np.concatenate([edges, rest]).astype(NUMPY[dtype])
