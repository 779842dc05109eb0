"""``output = beta * input + alpha * (mat1 @ mat2)``, with ``beta`` and ``alpha`` runtime scalars.

The application calls the matmul program's application, which NineToothed inlines. The matmul
module is imported by its package path; ``compiler.suite.loader.load_program`` re-imports it under
the same ``ninetoothed`` binding as this file, so both files always use one library.
"""

import ninetoothed.language as ntl
from ninetoothed import Tensor

from compiler.suite.programs import matmul as mm


def arrangement(
    input,
    mat1,
    mat2,
    beta,
    alpha,
    output,
    BLOCK_SIZE_M=mm.BLOCK_SIZE_M,
    BLOCK_SIZE_N=mm.BLOCK_SIZE_N,
    BLOCK_SIZE_K=mm.BLOCK_SIZE_K,
):
    mat1_arranged, mat2_arranged, output_arranged = mm.arrangement(
        mat1, mat2, output, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K
    )
    input_arranged = input.tile((BLOCK_SIZE_M, BLOCK_SIZE_N))
    return input_arranged, mat1_arranged, mat2_arranged, beta, alpha, output_arranged


def application(input, mat1, mat2, beta, alpha, output):
    product = ntl.zeros(output.shape, dtype=ntl.float32)
    mm.application(mat1, mat2, product)
    output = beta * input + alpha * product  # noqa: F841


tensors = (Tensor(2), Tensor(2, other=0), Tensor(2, other=0), Tensor(0), Tensor(0), Tensor(2))
