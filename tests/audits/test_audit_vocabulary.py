"""Whole-word matching of operator names in identifiers and name-like strings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audits.vocabulary import (
    DEFAULT_OPERATOR_WORDS,
    GENERIC_PRIMITIVES,
    Vocabulary,
    split_words,
)

OPERATORS = Vocabulary(DEFAULT_OPERATOR_WORDS)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("FlashAttentionOpIR", ["flash", "attention", "op", "ir"]),
        ("lower_mm_v2", ["lower", "mm", "v", "2"]),
        ("RMSNorm", ["rms", "norm"]),
        ("conv2d", ["conv", "2", "d"]),
        ("nt.flash_attention", ["nt", "flash", "attention"]),
    ],
)
def test_split_words(name: str, words: list[str]):
    assert split_words(name) == words


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("lower_matmul", "matmul"),
        ("emit_mm_kernel", "mm"),
        ("FlashAttentionOpIR", "flash"),
        ("MatmulKernelTemplate", "matmul"),
        ("lowerMatMul", "matmul"),
        ("LayerNormPass", "layer_norm"),
        ("layer_norm", "layer_norm"),
        ("layernorm", "layer_norm"),
        ("Im2Col", "im2col"),
        ("lowermatmul", "matmul"),
        ("fusedattn", "attn"),
        ("lower_mаtmul", "matmul"),  # a Cyrillic "а"
        ("ＭＡＴＭＵＬ", "matmul"),  # full-width letters
        ("max_pool", "max_pool"),
        ("soft_max", "softmax"),
    ],
)
def test_operator_names_match(name: str, word: str):
    assert OPERATORS.find(name) == word


@pytest.mark.parametrize(
    "name",
    [
        "address", "dotted", "attributes", "summary", "common", "command", "commit", "comma",
        "gemma", "immediate", "conversion", "property", "reduce_sum", "decompose_linalg",
        "lower_memory_scopes", "memory_pool", "vector_norm", "linear_index", "summarize",
        "calling_conv", "payne_hanek_reduction", "get_reduction_blocks", "lower_reductions",
    ],
)  # fmt: skip
def test_ordinary_words_do_not_match(name: str):
    assert OPERATORS.find(name) is None


@pytest.mark.parametrize("primitive", GENERIC_PRIMITIVES)
def test_generic_primitives_are_not_operators(primitive: str):
    assert OPERATORS.find(primitive) is None
    assert OPERATORS.find(f"lower_{primitive}") is None


@pytest.mark.parametrize(
    ("name", "found"),
    [("c", "c"), ("C", "c"), ("nv", "nv"), ("cuda", "cuda"), ("is_cuda", "cuda"),
     ("C_coords", None), ("pragma_import_c", None), ("c0_axis", None), ("CPtr", None)],
)  # fmt: skip
def test_short_backend_names_match_only_a_whole_string(name: str, found: str | None):
    backends = Vocabulary(["c", "nv", "cuda"], glue=(), whole_below=3)
    assert backends.find(name) == found
    assert backends.without(["cuda"]).find(name) == (None if found == "cuda" else found)
    assert backends.find_identifier(name) == (found if found == "cuda" else None)


def test_without_removes_words():
    assert OPERATORS.without(["rope"]).find("apply_rope") is None
    assert OPERATORS.without(["rope"]).find("apply_matmul") == "matmul"


_PLAIN_WORDS = st.sampled_from(
    ["lower", "emit", "kernel", "tile", "block", "index", "value", "op", "pass", "scope", "2"]
)


@given(st.lists(_PLAIN_WORDS, min_size=1, max_size=5), st.sampled_from(DEFAULT_OPERATOR_WORDS))
def test_an_operator_word_is_found_in_any_spelling(words: list[str], operator: str):
    parts = [*words, *operator.split("_")]
    snake = "_".join(parts)
    camel = "".join(part.capitalize() for part in parts)
    assert OPERATORS.find(snake) is not None
    assert OPERATORS.find(camel) is not None


@given(st.lists(_PLAIN_WORDS, min_size=1, max_size=6))
def test_names_without_operator_words_never_match(words: list[str]):
    assert OPERATORS.find("_".join(words)) is None
