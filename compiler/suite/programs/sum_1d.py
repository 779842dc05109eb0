"""Whole-vector sum in one program: the vector is tiled into blocks, and the blocks are tiled again
into one row of blocks, so the single program loops over every block and needs no atomics."""

import ninetoothed.language as ntl
from ninetoothed import Tensor, block_size

BLOCK_SIZE = block_size()


def arrangement(input, output, BLOCK_SIZE=BLOCK_SIZE):
    return input.tile((BLOCK_SIZE,)).tile((-1,)), output.tile((1,))


def application(input, output):
    accumulator = ntl.zeros(input.dtype.shape, dtype=ntl.float32)
    for i in range(input.shape[0]):
        accumulator += input[i]
    output = ntl.sum(accumulator, 0)  # noqa: F841


tensors = (Tensor(1, other=0), Tensor(1))
