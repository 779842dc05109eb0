"""RMS norm over rows: fp16 in and out, fp32 math, ``eps`` a runtime scalar. One program per row,
the row held in one block of ``BLOCK_SIZE`` (a constexpr the caller passes, at least the row
length); the row length itself is read from the source tensor's shape."""

import ninetoothed.language as ntl
from ninetoothed import Symbol, Tensor

BLOCK_SIZE = Symbol("BLOCK_SIZE", constexpr=True)


def arrangement(input, weight, eps, output, BLOCK_SIZE=BLOCK_SIZE):
    input_arranged = input.tile((1, BLOCK_SIZE))
    weight_arranged = weight.unsqueeze(0).tile((1, BLOCK_SIZE))
    weight_arranged = weight_arranged.expand((input_arranged.shape[0], -1))
    return input_arranged, weight_arranged, eps, output.tile((1, BLOCK_SIZE))


def application(input, weight, eps, output):
    x = ntl.cast(input, ntl.float32)
    mean_square = ntl.sum(x * x) / input.source.shape[-1]
    output = x * ntl.rsqrt(mean_square + eps) * ntl.cast(weight, ntl.float32)  # noqa: F841


tensors = (Tensor(2, other=0), Tensor(1), Tensor(0), Tensor(2))
