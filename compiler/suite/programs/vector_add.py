from ninetoothed import Tensor, block_size

BLOCK_SIZE = block_size()


def arrangement(input, other, output, BLOCK_SIZE=BLOCK_SIZE):
    return input.tile((BLOCK_SIZE,)), other.tile((BLOCK_SIZE,)), output.tile((BLOCK_SIZE,))


def application(input, other, output):
    output = input + other  # noqa: F841


tensors = (Tensor(1), Tensor(1), Tensor(1))
