"""Known arrangements, built with both libraries, must read the same source offsets."""

import pytest


def tiles(tile_shape, strides=None, dilation=None, floor_mode=False, shape=(9, 7)):
    def recipe(nt):
        x = nt.Tensor(len(shape))
        arranged = x.tile(tile_shape, strides=strides, dilation=dilation, floor_mode=floor_mode)
        return (arranged,), {x: {"shape": shape}}

    return recipe


TILES = {
    "plain": tiles((4, 3)),
    "whole-row": tiles((1, -1)),
    "whole-column": tiles((-1, 2)),
    "strided": tiles((3, 2), strides=(2, 3)),
    "overlapping": tiles((4, 4), strides=(1, 2)),
    "dilated": tiles((2, 3), dilation=(3, 2)),
    "strided-dilated": tiles((3, 2), strides=(2, -1), dilation=(2, 2)),
    "floor-mode": tiles((4, 3), strides=(2, 2), floor_mode=True),
    "floor-mode-dilated": tiles((2, 2), strides=(3, 1), dilation=(2, 3), floor_mode=True),
    "larger-than-tensor": tiles((12, 8)),
    "rank-3": tiles((2, -1, 2), strides=(1, -1, 3), shape=(5, 3, 8)),
}


@pytest.mark.parametrize("name", TILES)
def test_tile(name, matches_ninetoothed):
    matches_ninetoothed(TILES[name])


def test_tile_with_symbolic_parameters(matches_ninetoothed):
    def recipe(nt):
        x = nt.Tensor(2)
        tile_m, stride_n = nt.Symbol("tile_m"), nt.Symbol("stride_n")
        arranged = x.tile((tile_m, 3), strides=(-1, stride_n), dilation=(1, 2))
        return (arranged,), {x: {"shape": (11, 13)}, tile_m: 4, stride_n: 2}

    matches_ninetoothed(recipe)


def test_nested_tile(matches_ninetoothed):
    def recipe(nt):
        x = nt.Tensor(2)
        arranged = x.tile((4, 6))
        arranged.dtype = arranged.dtype.tile((2, 3))
        return (arranged,), {x: {"shape": (10, 13)}}

    matches_ninetoothed(recipe)


def matmul_arrangement(input, other, output, block_m, block_n, block_k):
    output_arranged = output.tile((block_m, block_n))

    input_arranged = input.tile((block_m, block_k))
    input_arranged = input_arranged.tile((1, -1))
    input_arranged = input_arranged.expand((-1, output_arranged.shape[1]))
    input_arranged.dtype = input_arranged.dtype.squeeze(0)

    other_arranged = other.tile((block_k, block_n))
    other_arranged = other_arranged.tile((-1, 1))
    other_arranged = other_arranged.expand((output_arranged.shape[0], -1))
    other_arranged.dtype = other_arranged.dtype.squeeze(1)

    return input_arranged, other_arranged, output_arranged


def test_matmul(matches_ninetoothed):
    def recipe(nt):
        blocks = nt.Symbol("block_m"), nt.Symbol("block_n"), nt.Symbol("block_k")
        input, other, output = (nt.Tensor(2) for _ in range(3))
        arranged = matmul_arrangement(input, other, output, *blocks)
        subs = {input: {"shape": (10, 7)}, other: {"shape": (7, 9)}, output: {"shape": (10, 9)}}
        return arranged, subs | dict(zip(blocks, (4, 2, 3), strict=True))

    matches_ninetoothed(recipe)


def test_matmul_with_concrete_sizes(matches_ninetoothed):
    def recipe(nt):
        input, other, output = nt.Tensor(shape=(6, 5)), nt.Tensor(shape=(5, 4)), nt.Tensor(2)
        subs = {input: {"shape": (6, 5)}, other: {"shape": (5, 4)}, output: {"shape": (6, 4)}}
        return matmul_arrangement(input, other, output, 4, 2, 2), subs

    matches_ninetoothed(recipe)


def test_conv2d_im2col(matches_ninetoothed):
    def recipe(nt):
        input, weight, output = (nt.Tensor(4) for _ in range(3))
        stride_h, stride_w = nt.Symbol("stride_h"), nt.Symbol("stride_w")
        dilation_h, dilation_w = nt.Symbol("dilation_h"), nt.Symbol("dilation_w")

        input_arranged = input.pad(((0, 0), (0, 0), (1, 1), (2, 0)))
        input_arranged = input_arranged.tile(
            (1, *weight.shape[1:]),
            strides=(-1, -1, stride_h, stride_w),
            dilation=(1, 1, dilation_h, dilation_w),
            floor_mode=True,
        )
        input_arranged = input_arranged.squeeze(1)
        input_arranged.dtype = input_arranged.dtype.squeeze(0)
        input_arranged = input_arranged.ravel()
        input_arranged = input_arranged.flatten(end_dim=3).flatten(start_dim=1)

        weight_arranged = weight.flatten(start_dim=1).permute((1, 0))
        output_arranged = output.permute((0, 2, 3, 1)).flatten(end_dim=3)

        arranged = matmul_arrangement(input_arranged, weight_arranged, output_arranged, 8, 2, 4)
        subs = {
            input: {"shape": (1, 2, 6, 5)},
            weight: {"shape": (3, 2, 3, 2)},
            output: {"shape": (1, 3, 3, 5)},
            stride_h: 2,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 2,
        }
        return arranged, subs

    matches_ninetoothed(recipe)


def test_max_pool2d(matches_ninetoothed):
    def recipe(nt):
        window_h, window_w = nt.Symbol("window_h"), nt.Symbol("window_w")
        input, output = nt.Tensor(4), nt.Tensor(4)

        input_arranged = input.tile((1, 1, window_h, window_w))
        input_arranged = input_arranged.ravel()
        input_arranged = input_arranged.flatten(end_dim=4).flatten(start_dim=1)
        input_arranged = input_arranged.tile((8, -1))

        output_arranged = output.tile((1, 1, 1, 1))
        output_arranged = output_arranged.ravel()
        output_arranged = output_arranged.flatten(end_dim=4).flatten(start_dim=1)
        output_arranged = output_arranged.tile((8, -1))
        output_arranged.dtype = output_arranged.dtype.squeeze(1)

        subs = {
            input: {"shape": (2, 3, 7, 8)},
            output: {"shape": (2, 3, 3, 3)},
            window_h: 2,
            window_w: 3,
        }
        return (input_arranged, output_arranged), subs

    matches_ninetoothed(recipe)


def test_softmax(matches_ninetoothed):
    def recipe(nt):
        input, output = nt.Tensor(2, other=float("-inf")), nt.Tensor(2)
        arranged = input.tile((1, -1)), output.tile((1, -1))
        return arranged, {input: {"shape": (5, 11)}, output: {"shape": (5, 11)}}

    matches_ninetoothed(recipe)


def test_attention(matches_ninetoothed):
    def recipe(nt):
        block_m, block_n = nt.Symbol("block_m"), nt.Symbol("block_n")
        q, k, v, o = (nt.Tensor(4) for _ in range(4))

        def arrange_q_or_o(input):
            arranged = input.tile((1, 1, block_m, -1))
            arranged.dtype = arranged.dtype.squeeze((0, 1))
            return arranged

        def arrange_k_or_v(input):
            arranged = input.tile((1, 1, block_n, -1))
            arranged = arranged.tile((1, 1, -1, -1))
            arranged = arranged.expand((-1, -1, q_arranged.shape[-2], -1))
            arranged.dtype = arranged.dtype.squeeze((0, 1, 3))
            arranged.dtype.dtype = arranged.dtype.dtype.squeeze((0, 1))
            return arranged

        q_arranged = arrange_q_or_o(q)
        arranged = (q_arranged, arrange_k_or_v(k), arrange_k_or_v(v), arrange_q_or_o(o))
        subs = {t: {"shape": (2, 3, 10, 4)} for t in (q, o)}
        subs |= {t: {"shape": (2, 3, 7, 4)} for t in (k, v)}
        return arranged, subs | {block_m: 4, block_n: 3}

    matches_ninetoothed(recipe)


INDEXING = {
    "int": lambda x: x[2],
    "int-then-slice": lambda x: x[1, 1:4],
    "stepped": lambda x: x[1:6:2, ::3],
    "reversed": lambda x: x[::-1, 4:0:-2],
    "negative-bounds": lambda x: x[-3:, :-2],
    "past-the-end": lambda x: x[4:9, 2:10],
    "none-and-ellipsis": lambda x: x[None, ..., 1:3],
    "ellipsis-int": lambda x: x[..., 3],
    "none-between": lambda x: x[2:, None, ::2],
}


@pytest.mark.parametrize("name", INDEXING)
def test_getitem(name, matches_ninetoothed):
    def recipe(nt):
        x = nt.Tensor(2)
        return (INDEXING[name](x),), {x: {"shape": (7, 6)}}

    matches_ninetoothed(recipe)


def test_getitem_of_tiles(matches_ninetoothed):
    def recipe(nt):
        x = nt.Tensor(shape=(9, 8))
        arranged = x.tile((2, 4))[1:, ::-1]
        arranged.dtype = arranged.dtype[::2, 1:3]
        return (arranged,), None

    matches_ninetoothed(recipe)


RESHAPES = {
    "unsqueeze-permute": lambda x: x.unsqueeze(1).permute((3, 0, 2, 1)),
    "permute-flatten": lambda x: x.permute((1, 0, 2)).flatten(start_dim=1),
    "flatten-middle": lambda x: x.flatten(1, 3),
    "flatten-all-then-tile": lambda x: x.flatten().tile((5,)),
    "unsqueeze-expand": lambda x: x.unsqueeze(0).expand((3, -1, -1, -1)),
    "pad-then-tile": lambda x: x.pad(((1, 0), (0, 2), (2, 2))).tile((2, 3, 4)),
    "tile-permute-both-levels": lambda x: _permute_both_levels(x.tile((2, 1, 3))),
    "tile-ravel-flatten": lambda x: x.tile((2, 2, 2)).ravel().flatten(2, 5),
}


def _permute_both_levels(arranged):
    arranged = arranged.permute((2, 0, 1))
    arranged.dtype = arranged.dtype.permute((1, 2, 0)).flatten(0, 2)
    return arranged


@pytest.mark.parametrize("name", RESHAPES)
def test_reshapes(name, matches_ninetoothed):
    def recipe(nt):
        x = nt.Tensor(3)
        return (RESHAPES[name](x),), {x: {"shape": (3, 4, 5)}}

    matches_ninetoothed(recipe)
