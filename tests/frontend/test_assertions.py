"""`assert` and `ntl.device_assert` in an application, as Triton takes them under NineToothed:
checked only under Triton's `debug` option (`TRITON_DEBUG=1`), so without it they compute nothing
and the kernel is the one without them. With it, a condition known at compile time is checked
then, and one on the data (a check on the device, not compiled here) is refused at its line."""

import math

import pytest
import torch

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError

BACKENDS = sorted(TARGETS)


def arrangement(x, y, BLOCK=16):
    return x.tile((BLOCK,)), y.tile((BLOCK,))


def plain(x, y):
    y = x * 2 + 1  # noqa: F841


def asserting(x, y):
    assert x.shape[0] == 16, "one block of 16"
    assert ntl.sum(x * x) >= 0, "a sum of squares"
    ntl.device_assert(x == x, "no NaN", mask=x > 0)
    y = x * 2 + 1  # noqa: F841


def failing(x, y):
    assert x.shape[0] == 8, "blocks of 8"
    y = x  # noqa: F841


def on_data(x, y):
    y = x  # noqa: F841
    ntl.device_assert(x < 100.0)


def computed_message(x, y):
    assert x.shape[0] == 16, x
    y = x  # noqa: F841


def _make(application, backend="triton"):
    return ninetoothed.make(arrangement, application, (Tensor(1), Tensor(1)), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_without_debug_assertions_check_nothing_and_leave_nothing(backend, monkeypatch):
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    x = torch.randn(45)
    x[3] = math.nan  # the assertion on it would fail: Triton does not check it either
    y = torch.full_like(x, math.nan)
    _make(asserting, backend)(x, y)
    torch.testing.assert_close(y, x * 2 + 1, equal_nan=True)
    ours = _make(asserting, backend).compile(x, y).ssa
    without = _make(plain, backend).compile(x, y).ssa
    assert ours.replace("asserting", "plain") == without


def test_without_debug_a_false_constant_assertion_is_not_checked(monkeypatch):
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    x = torch.randn(20)
    y = torch.full_like(x, math.nan)
    _make(failing)(x, y)
    torch.testing.assert_close(y, x)


def test_with_debug_a_compile_time_condition_is_checked_now(monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG", "1")
    x = torch.randn(20)
    _make(plain)(x, torch.empty_like(x))
    with pytest.raises(CompileError, match=r"test_assertions.py:36: assertion failed: blocks of 8"):
        _make(failing)(x, torch.empty_like(x))


def test_with_debug_a_check_on_the_data_is_refused_at_its_line(monkeypatch):
    monkeypatch.setenv("TRITON_DEBUG", "true")
    x = torch.randn(20)
    with pytest.raises(CompileError, match=r"test_assertions.py:42: .*on a run-time value.*unset"):
        _make(on_data)(x, torch.empty_like(x))
    with pytest.raises(CompileError, match=r"test_assertions.py:30: .*on a run-time value"):
        _make(asserting)(x, torch.empty_like(x))


def test_the_message_must_be_a_string(monkeypatch):
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    x = torch.randn(20)
    with pytest.raises(CompileError, match=r"test_assertions.py:46: .*string literal"):
        _make(computed_message)(x, torch.empty_like(x))


def printing(x, y):
    print("x:", x)
    y = x  # noqa: F841


def device_printing(x, y):
    ntl.device_print("x:", x, hex=True)
    y = x  # noqa: F841


@pytest.mark.parametrize("application", [printing, device_printing])
def test_printing_on_the_device_is_refused_naming_what_prints(application):
    """Triton reads `print` in a kernel as `device_print`: a print at run time, not compiled
    here; the refusal names static_print and storing into an output."""
    x = torch.randn(20)
    with pytest.raises(
        CompileError, match=r"test_assertions.py:\d+: ntl.device_print .*static_print"
    ):
        _make(application)(x, torch.empty_like(x))
