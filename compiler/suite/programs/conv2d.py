"""2-D convolution (NCHW input, KCRS weight, no bias) as an implicit GEMM through an im2col view.

The padded input is tiled into one ``C x R x S`` window per output pixel (strided, floor mode), the
two levels are raveled into one, and the dims are flattened into an ``(N*P*Q, C*R*S)`` matrix; the
weight becomes ``(C*R*S, K)`` and the output ``(N*P*Q, K)`` through ``permute`` and ``flatten``.
Then the matmul program's arrangement and application do the rest. ``stride`` and ``padding`` are
plain ints bound into the arrangement, like the block sizes. The matmul module is imported by its
package path; see ``addmm``.
"""

from ninetoothed import Tensor

from compiler.suite.programs import matmul as mm


def arrangement(
    input,
    weight,
    output,
    stride=(1, 1),
    padding=(0, 0),
    BLOCK_SIZE_M=mm.BLOCK_SIZE_M,
    BLOCK_SIZE_N=mm.BLOCK_SIZE_N,
    BLOCK_SIZE_K=mm.BLOCK_SIZE_K,
):
    (stride_h, stride_w), (pad_h, pad_w) = stride, padding

    columns = input.pad(((0, 0), (0, 0), (pad_h, pad_h), (pad_w, pad_w)))
    columns = columns.tile(
        (1, *weight.shape[1:]), strides=(-1, -1, stride_h, stride_w), floor_mode=True
    )
    columns = columns.squeeze(1)
    columns.dtype = columns.dtype.squeeze(0)
    columns = columns.ravel()
    columns = columns.flatten(end_dim=3).flatten(start_dim=1)

    filters = weight.flatten(start_dim=1).permute((1, 0))

    output_matrix = output.permute((0, 2, 3, 1)).flatten(end_dim=3)

    return mm.arrangement(columns, filters, output_matrix, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K)


def application(input, weight, output):
    mm.application(input, weight, output)


tensors = (Tensor(4, other=0), Tensor(4, other=0), Tensor(4))
