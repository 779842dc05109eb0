"""2-D max pooling (NCHW, floor mode). The padded input is tiled into one window per output element
(strided tile), raveled and flattened into an ``(N*C*P*Q, R*S)`` matrix, and each program reduces
``BLOCK_SIZE`` rows. Padding and the tail of each window load ``-inf``. ``kernel_size``, ``stride``
and ``padding`` are plain ints bound into the arrangement, like the block size."""

import ninetoothed.language as ntl
from ninetoothed import Tensor, block_size

BLOCK_SIZE = block_size()


def arrangement(
    input, output, kernel_size=(2, 2), stride=(2, 2), padding=(0, 0), BLOCK_SIZE=BLOCK_SIZE
):
    (kernel_h, kernel_w), (stride_h, stride_w), (pad_h, pad_w) = kernel_size, stride, padding

    windows = input.pad(((0, 0), (0, 0), (pad_h, pad_h), (pad_w, pad_w)))
    windows = windows.tile(
        (1, 1, kernel_h, kernel_w), strides=(-1, -1, stride_h, stride_w), floor_mode=True
    )
    windows = windows.ravel().flatten(end_dim=4).flatten(start_dim=1)
    windows = windows.tile((BLOCK_SIZE, -1)).squeeze(1)

    return windows, output.flatten().tile((BLOCK_SIZE,))


def application(input, output):
    output = ntl.max(input, axis=1)  # noqa: F841


tensors = (Tensor(4, other=float("-inf")), Tensor(4))
