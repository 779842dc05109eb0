"""`num_warps` and `num_stages` as NineToothed takes them: an int fixes the value, a tuple lists
the values tuning may choose from (without measurement, the rule's nearest of them). On every
backend the kernel compiles and matches torch; a value of another kind is refused by name."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.passes.base import PassError
from compiler.passes.helpers.launch_options import chosen_option


def test_an_int_fixes_a_tuple_offers_and_nothing_leaves_the_rule():
    assert chosen_option("num_warps", 8, 4) == 8
    assert chosen_option("num_warps", None, 4) == 4
    assert chosen_option("num_warps", (2, 8), 4) == 2  # as near as 8 in doublings: the smaller
    assert chosen_option("num_stages", (1, 3), 2) == 3
    assert chosen_option("num_warps", [16, 8], 8) == 8
    with pytest.raises(PassError, match=r"num_warps='4': give an int or a tuple of ints"):
        chosen_option("num_warps", "4", 4)


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("warps, stages", [(4, 3), ((4, 8), (1, 3)), ((2,), None)])
def test_tuple_options_compile_and_run_on_every_backend(backend, warps, stages):
    def tiles(x, out):
        block = ninetoothed.block_size()
        return x.tile((block,)), out.tile((block,))

    def doubled(x, out):
        out = x * 2.0  # noqa: F841

    kernel = ninetoothed.make(
        tiles, doubled, (Tensor(1), Tensor(1)), backend=backend, num_warps=warps, num_stages=stages
    )
    x = torch.randn(300)
    out = torch.full((300,), math.nan)
    kernel(x, out)
    torch.testing.assert_close(out, x * 2)
    if kernel.last.num_warps is not None:
        offered = warps if isinstance(warps, tuple) else (warps,)
        assert kernel.last.num_warps in offered
