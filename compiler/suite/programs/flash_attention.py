"""Flash attention (online softmax in base 2) over ``(batch, heads, seq, head_dim)`` tensors.

One program per block of queries loops over the blocks of keys. Keys past the sequence end are
masked with ``k[j].offsets(-2) < k.source.shape[-2]``; with the constexpr ``is_causal`` keys after
the query (``q.offsets(-2)``) are masked too. ``is_causal`` comes last so callers may pass it by
name.
"""

import ninetoothed.language as ntl
from ninetoothed import Tensor, block_size

BLOCK_SIZE_M = block_size()
BLOCK_SIZE_N = block_size()


def arrangement(q, k, v, scale, o, is_causal, BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N):
    def arrange_q_or_o(input):
        arranged = input.tile((1, 1, BLOCK_SIZE_M, -1))
        arranged.dtype = arranged.dtype.squeeze((0, 1))
        return arranged

    def arrange_k_or_v(input):
        arranged = input.tile((1, 1, BLOCK_SIZE_N, -1)).tile((1, 1, -1, -1))
        arranged = arranged.expand((-1, -1, q_arranged.shape[-2], -1))
        arranged.dtype = arranged.dtype.squeeze((0, 1, 3))
        arranged.dtype.dtype = arranged.dtype.dtype.squeeze((0, 1))
        return arranged

    q_arranged = arrange_q_or_o(q)
    return (
        q_arranged,
        arrange_k_or_v(k),
        arrange_k_or_v(v),
        scale,
        arrange_q_or_o(o),
        is_causal,
    )


def application(q, k, v, scale, o, is_causal):
    # exp(x) = exp2(x * log2(e)); the constant is written out because the kernel cannot see globals.
    q_scaled = (q * (scale * 1.4426950408889634)).to(q.dtype)

    acc = ntl.zeros((q.shape[-2], q.shape[-1]), dtype=ntl.float32)
    row_sum = ntl.zeros((q.shape[-2],), dtype=ntl.float32)
    row_max = ntl.full((q.shape[-2],), float("-inf"), dtype=ntl.float32)

    for j in range(k.shape[0]):
        qk = ntl.dot(q_scaled, ntl.trans(k[j]))
        qk = ntl.where(k[j].offsets(-2)[None, :] < k.source.shape[-2], qk, float("-inf"))

        if is_causal:
            qk = ntl.where(q.offsets(-2)[:, None] >= k[j].offsets(-2)[None, :], qk, float("-inf"))

        next_max = ntl.maximum(row_max, ntl.max(qk, 1))
        safe_max = ntl.where(next_max == float("-inf"), 0.0, next_max)
        p = ntl.exp2(qk - safe_max[:, None])
        alpha = ntl.where(row_max == float("-inf"), 0.0, ntl.exp2(row_max - safe_max))

        acc = acc * alpha[:, None] + ntl.dot(p.to(q.dtype), v[j])
        row_sum = row_sum * alpha + ntl.sum(p, 1)
        row_max = next_max

    o = acc / row_sum[:, None]  # noqa: F841


_HEAD_DIM = {"constexpr": True, "upper_bound": 128}

tensors = (
    Tensor(4, shape_options=(None, None, None, _HEAD_DIM)),
    Tensor(4, shape_options=(None, None, None, _HEAD_DIM)),
    Tensor(4, shape_options=(None, None, None, _HEAD_DIM)),
    Tensor(0),
    Tensor(4, shape_options=(None, None, None, _HEAD_DIM)),
    Tensor(0, constexpr=True, name="is_causal"),
)
