"""`ninetoothed.debugging.simulate_arrangement`: which source element every position of every
arranged tensor reads, as torch tensors, for sources of fixed shape.

Each source comes back as `arange(numel)` in its shape, so an element's value is its index; each
target has one axis for all programs (the outermost level flattened, program ids in order) and then
the axes of its inner levels, holding the index each position reads, or -1 where it is masked off.
The answer comes from `views.resolve`, the same index maps the front end lowers. Torch is imported
on the first call, so `import ninetoothed` stays quick.
"""

from __future__ import annotations

import math

import numpy as np

from compiler.dsl.evaluate import evaluate
from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError


def simulate_arrangement(arrangement, tensors, device=None):
    """(source tensors, target tensors) in the order `arrangement` returns them."""
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    for position, tensor in enumerate(tensors):
        unsized = [size for size in tensor.shape if not isinstance(size, int)]
        if unsized:
            code = getattr(arrangement, "__code__", None)
            raise CompileError(
                f"simulate_arrangement: tensor {position} has sizes {unsized} with no value; "
                "give each Tensor its shape (Tensor(shape=(4, 8)))",
                filename=code and code.co_filename,
                line=code and code.co_firstlineno,
            )
    arranged = arrangement(*tensors)
    arranged = arranged if isinstance(arranged, tuple) else (arranged,)
    sources, targets = [], []
    for tensor in arranged:
        numel = math.prod(tensor.source.shape)
        sources.append(torch.arange(numel, device=device).view(tuple(tensor.source.shape)))
        targets.append(_target(tensor).to(device))
    return tuple(sources), tuple(targets)


def _target(tensor: Tensor):
    import torch

    offsets = evaluate(tensor)
    if tensor.source.ndim == 0:
        return torch.tensor(0)
    programs = math.prod(offsets.shape[: tensor.ndim])
    flat = np.ascontiguousarray(offsets).reshape(programs, *offsets.shape[tensor.ndim :])
    return torch.from_numpy(flat.astype(np.int64))
