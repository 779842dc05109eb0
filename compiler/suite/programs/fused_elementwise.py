import ninetoothed.language as ntl
from ninetoothed import Tensor, block_size

BLOCK_SIZE = block_size()


def arrangement(x, y, output, BLOCK_SIZE=BLOCK_SIZE):
    return x.tile((BLOCK_SIZE,)), y.tile((BLOCK_SIZE,)), output.tile((BLOCK_SIZE,))


def application(x, y, output):
    output = ntl.where(x > 0, ntl.exp(x) * ntl.sqrt(ntl.abs(y)), y)  # noqa: F841


tensors = (Tensor(1), Tensor(1), Tensor(1))
