"""Programs run in no fixed order (at once, on a GPU), so a tensor one program writes must not
share memory with a tensor other programs read or write: what they see would depend on the order.
Before a launch, each tensor the kernel writes is compared with every other tensor argument; where
two are views of one storage whose element ranges meet, and are not the same view (an in-place
update, where each program reads and writes its own tile), the launch warns, naming both and
the fix. It warns rather than refuses: a program may keep such views apart by its own indexing, as
the ranges compared here are each view's whole span."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact


class OverlapWarning(RuntimeWarning):
    """A launch whose programs may race: a written tensor shares memory with another argument."""


def warn_overlaps(artifact: Artifact, bindings: Mapping[str, object], stacklevel: int = 2) -> None:
    """`stacklevel`: the frame the warning names, counted from this function's caller."""
    tensors = checked_buffers(artifact, bindings)
    for name, other in compared_pairs(artifact, tensors):
        if _meet(tensors[name], tensors[other]):
            message = _message(artifact, name, other)
            warnings.warn(message, OverlapWarning, stacklevel=stacklevel + 1)


def checked_buffers(artifact: Artifact, bindings: Mapping[str, object]) -> dict[str, torch.Tensor]:
    """The buffer arguments the check compares: those the kernel touches, with elements."""
    return {
        name: value
        for name, kind in artifact.args
        if kind == "buffer" and name not in artifact.unused_buffers
        for value in [bindings.get(name)]
        if isinstance(value, torch.Tensor) and value.numel() and not value.is_nested
    }


def compared_pairs(artifact: Artifact, checked: Mapping[str, object]) -> list[tuple[str, str]]:
    """(written, other) for each buffer of `checked` the kernel writes and each other one; a
    pair both written once."""
    written = [
        name for name in dict.fromkeys(n for n, _ in artifact.written_tiles) if name in checked
    ]
    return [
        (name, other)
        for name in written
        for other in checked
        if other != name and (other not in written or name < other)
    ]


def _meet(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Views of one storage whose byte spans intersect, other than the very same view."""
    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return False
    if (a.data_ptr(), a.shape, a.stride(), a.dtype) == (b.data_ptr(), b.shape, b.stride(), b.dtype):
        return False
    (a_start, a_end), (b_start, b_end) = span(a), span(b)
    return a_start < b_end and b_start < a_end


def span(t: torch.Tensor) -> tuple[int, int]:
    """[first byte, one past the last byte] the view can touch."""
    low = sum((n - 1) * s for n, s in zip(t.shape, t.stride(), strict=True) if s < 0)
    high = sum((n - 1) * s for n, s in zip(t.shape, t.stride(), strict=True) if s > 0)
    size = t.element_size()
    return t.data_ptr() + low * size, t.data_ptr() + (high + 1) * size


def _message(artifact: Artifact, written: str, other: str) -> str:
    return (
        f"@{artifact.kernel_name}: {written}, which the kernel writes, shares memory with "
        f"{other}: programs run in no fixed order, so what reads {other} may see {written} "
        f"before or after it is written; pass {written} a tensor of its own (a copy), or write it "
        "in a launch of its own"
    )
