"""Attention over jagged q, k, v (`Tensor(4, jagged_dim=1)`, sequences of different lengths): in
the application a ragged size (`k.source.shape[1]`, `k.shape`) is the program's own sequence
length, as in NineToothed, so a key-padding mask written against it keeps each sequence to its
own keys. Causal and not, on every backend, against torch per sequence."""

import math

import pytest
import torch

import compiler.dsl.language as ntl
from compiler import dsl
from compiler.backends import TARGETS
from compiler.dsl import Tensor

BLOCK_M, BLOCK_N = 16, 8


def arrangement(q, k, v, is_causal, o):
    def rows(x):
        arranged = x.tile((1, BLOCK_M, 1, -1))
        arranged.dtype = arranged.dtype.squeeze((0, 2))
        return arranged

    def keys(x):
        arranged = x.tile((1, BLOCK_N, 1, -1)).tile((1, -1, 1, -1))
        arranged = arranged.expand((-1, q_arranged.shape[1], -1, -1))
        arranged.dtype = arranged.dtype.squeeze((0, 2, 3))
        arranged.dtype.dtype = arranged.dtype.dtype.squeeze((0, 2))
        return arranged

    q_arranged = rows(q)
    return q_arranged, keys(k), keys(v), is_causal, rows(o)


def application(q, k, v, is_causal, o):
    acc = ntl.zeros((q.shape[-2], q.shape[-1]), dtype=ntl.float32)
    l_i = ntl.full((q.shape[-2],), 1, dtype=ntl.float32)
    m_i = ntl.full((q.shape[-2],), float("-inf"), dtype=ntl.float32)
    for i in range(k.shape[0]):
        qk = ntl.dot(q, ntl.trans(k[i])) * 0.25
        qk = ntl.where(k[i].offsets(1)[None, :] < k.source.shape[1], qk, float("-inf"))
        if is_causal:
            qk = ntl.where(q.offsets(1)[:, None] >= k[i].offsets(1)[None, :], qk, float("-inf"))
        m_ij = ntl.maximum(m_i, ntl.max(qk, 1))
        p = ntl.exp(qk - m_ij[:, None])
        alpha = ntl.exp(m_i - m_ij)
        acc = acc * alpha[:, None] + ntl.dot(p, v[i])
        m_i = m_ij
        l_i = l_i * alpha + ntl.sum(p, 1)
    o = acc / l_i[:, None]  # noqa: F841


def jagged():
    return Tensor(4, jagged_dim=1, shape_options=(None, None, None, {"constexpr": True}))


@pytest.mark.parametrize("backend", sorted(TARGETS))
@pytest.mark.parametrize("is_causal", [False, True])
def test_varlen_attention_matches_torch_per_sequence(backend, is_causal):
    kernel = dsl.make(
        arrangement,
        application,
        (jagged(), jagged(), jagged(), Tensor(0, constexpr=True), jagged()),
        backend=backend,
    )
    lengths, heads, dim = (5, 37, 1, 20), 2, 16  # one longer than two blocks, one of one token

    def nested(fill=None):
        parts = [torch.randn(n, heads, dim) if fill is None else torch.full((n, heads, dim), fill)
                 for n in lengths]  # fmt: skip
        return parts, torch.nested.nested_tensor(parts, layout=torch.jagged)

    (qs, q), (ks, k), (vs, v) = nested(), nested(), nested()
    _, o = nested(math.nan)
    kernel(q, k, v, is_causal, o)
    for got, q1, k1, v1 in zip(o.unbind(), qs, ks, vs, strict=True):
        expected = torch.nn.functional.scaled_dot_product_attention(
            q1.transpose(0, 1), k1.transpose(0, 1), v1.transpose(0, 1), is_causal=is_causal,
            scale=0.25,
        ).transpose(0, 1)  # fmt: skip
        torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-4)
