"""The key a launch is planned by: calls alike in every way a plan depends on share one key, and a
change in any of them (dtype, sizes, strides, alignment, a number's type, a constexpr value, a
keyword value) makes another; calls the reader cannot read raise, for the general path."""

import pytest
import torch

from compiler.frontend.call_signature import (
    BUFFER,
    CONSTANT,
    NUMBER,
    keyword_key,
    reading,
    signature_reader,
)

READ = signature_reader(reading([BUFFER, NUMBER, CONSTANT, BUFFER], alignment=16))


def key(*args):
    return READ(args)[0]


def test_fresh_tensors_of_one_layout_share_a_key_and_give_their_pointers():
    a, b = torch.randn(8, 4), torch.randn(8, 4)
    (first, pointers), (second, _) = READ((a, 1.5, 3, b)), READ((b, -2.0, 3, a))
    assert first == second and hash(first) == hash(second)
    assert pointers == (a.data_ptr(), b.data_ptr())


@pytest.mark.parametrize(
    "other",
    [
        lambda x: x.double(),  # dtype
        lambda x: torch.randn(8, 5)[:, :4],  # strides
        lambda x: torch.randn(9, 4),  # sizes
        lambda x: torch.randn(33)[1:].view(8, 4),  # 4 bytes past an aligned start
        lambda x: x.t().contiguous().t(),  # column-major
    ],
)
def test_a_buffer_laid_out_otherwise_makes_another_key(other):
    x = torch.randn(8, 4)
    assert key(x, 1.0, 3, x) != key(other(x), 1.0, 3, x)


def test_a_number_counts_by_type_and_a_constexpr_by_value():
    x = torch.randn(4)
    assert key(x, 1.0, 3, x) == key(x, 7.0, 3, x)
    assert key(x, 1.0, 3, x) != key(x, 1, 3, x)
    assert key(x, 1.0, 3, x) != key(x, 1.0, 4, x)
    assert key(x, 1.0, 1, x) != key(x, 1.0, True, x)


def test_without_alignment_the_start_does_not_count():
    read = signature_reader(reading([BUFFER], alignment=0))
    storage = torch.randn(33)
    assert read((storage[:32],))[0] == read((storage[1:],))[0]


def test_a_call_the_reader_cannot_read_raises():
    x = torch.randn(4)
    with pytest.raises(AttributeError):
        READ((3.0, 1.0, 3, x))  # a number where a buffer goes
    with pytest.raises(ValueError):
        READ((x, 1.0, 3))  # an argument short
    sparse = torch.randn(4).to_sparse()
    with pytest.raises(RuntimeError):
        READ((sparse, 1.0, 3, x))
    with pytest.raises(TypeError):
        hash(key(x, 1.0, [3], x))  # an unhashable constexpr value


def test_keywords_count_by_name_value_and_type_in_any_order():
    assert keyword_key({"A": 1, "B": 2}) == keyword_key({"B": 2, "A": 1})
    assert keyword_key({"A": 1}) != keyword_key({"A": 2})
    assert keyword_key({"A": 1}) != keyword_key({"B": 1})
    assert keyword_key({"A": 1}) != keyword_key({"A": 1.0})
