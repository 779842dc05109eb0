"""An unmodified NineToothed program: `ntc run examples/add.py` runs it with this compiler."""

import ninetoothed
import torch
from ninetoothed import Symbol, Tensor

BLOCK_SIZE = Symbol("BLOCK_SIZE", constexpr=True)


def arrangement(x, y, z, BLOCK_SIZE=BLOCK_SIZE):
    return x.tile((BLOCK_SIZE,)), y.tile((BLOCK_SIZE,)), z.tile((BLOCK_SIZE,))


def application(x, y, z):
    z = x + y  # noqa: F841


kernel = ninetoothed.make(arrangement, application, (Tensor(1), Tensor(1), Tensor(1)))

if __name__ == "__main__":
    x, y = torch.randn(1000), torch.randn(1000)
    z = torch.full_like(x, float("nan"))
    kernel(x, y, z, BLOCK_SIZE=256)
    print("max |error| vs torch:", (z - (x + y)).abs().max().item())
