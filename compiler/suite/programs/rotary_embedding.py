"""Rotary position embedding, interleaved (GPT-J) form, over ``(batch, seq, heads, head_dim)``.

One program per (batch, position) takes every head. Along ``head_dim``, a tile of ``head_dim / 2``
elements with dilation 2 and stride 1 splits each row into its even and its odd elements (outer
index 0 and 1); a second tile puts both in one program. The ``(seq, head_dim / 2)`` sin and cos
tables are unsqueezed, and expanded over the batch.
"""

from ninetoothed import Tensor


def arrangement(input, sin_table, cos_table, output):
    half = sin_table.shape[-1]

    def arrange_input_or_output(tensor):
        arranged = tensor.tile((1, 1, -1, half), strides=(-1, -1, -1, 1), dilation=(1, 1, 1, 2))
        arranged = arranged.tile((1, 1, 1, -1))
        arranged.dtype = arranged.dtype.squeeze((0, 1, 2))
        arranged.dtype.dtype = arranged.dtype.dtype.squeeze((0, 1))
        return arranged

    def arrange_table(table):
        arranged = table.unsqueeze(0).unsqueeze(2).tile((1, 1, 1, -1))
        arranged = arranged.expand((input_arranged.shape[0], -1, -1, -1))
        arranged.dtype = arranged.dtype.squeeze((0, 1))
        return arranged

    input_arranged = arrange_input_or_output(input)
    return (
        input_arranged,
        arrange_table(sin_table),
        arrange_table(cos_table),
        arrange_input_or_output(output),
    )


def application(input, sin_table, cos_table, output):
    sin = sin_table
    cos = cos_table
    even = input[0]
    odd = input[1]
    output[0] = even * cos - odd * sin
    output[1] = even * sin + odd * cos


_HEADS = (None, None, {"constexpr": True, "upper_bound": 64}, None)
_HALF_HEAD_DIM = (None, {"constexpr": True, "upper_bound": 64})

tensors = (
    Tensor(4, shape_options=_HEADS),
    Tensor(2, shape_options=_HALF_HEAD_DIM),
    Tensor(2, shape_options=_HALF_HEAD_DIM),
    Tensor(4, shape_options=_HEADS),
)
