"""`ntl.map_elementwise` and combine functions with control flow on an element's value: `if`,
`elif`, early `return`, `while`, as Triton runs them on scalars, on every backend against torch."""

import pytest
import torch
import triton

import compiler.dsl as ninetoothed
import compiler.dsl.language as ntl
from compiler.backends import TARGETS
from compiler.dsl import Tensor
from compiler.errors import CompileError

SIZE, BLOCK = 300, 64  # ragged: the last block is partly masked
BACKENDS = sorted(TARGETS)


def tiled(*tensors):
    return tuple(t.tile((BLOCK,)) for t in tensors)


def run(application, backend, inputs, out_dtypes):
    tensors = tuple(Tensor(1) for _ in inputs) + tuple(Tensor(1, dtype=d) for d in out_dtypes)
    kernel = ninetoothed.make(tiled, application, tensors, backend=backend)
    outs = [torch.full((SIZE,), -7).to(_torch_dtype(d)) for d in out_dtypes]
    for out in outs:
        if out.is_floating_point():
            out.fill_(float("nan"))
    kernel(*inputs, *outs)
    return outs


def _torch_dtype(dtype):
    return {ninetoothed.int32: torch.int32, ninetoothed.float32: torch.float32}[dtype]


def floats(seed: int, scale: float = 2.0) -> torch.Tensor:
    return torch.randn(SIZE, generator=torch.Generator().manual_seed(seed)) * scale


@triton.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


def three_way(x, y, out):
    out = ntl.map_elementwise(compare, x, y)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_branch_per_element_returning_constants(backend):
    x, y = floats(1), floats(2)
    y[::7] = x[::7]
    (out,) = run(three_way, backend, (x, y), (ninetoothed.int32,))
    assert torch.equal(out, torch.where(x < y, -1, torch.where(x == y, 0, 1)).int())


def bounds(x, y):
    """Nested branches, a return inside one, a value assigned on one side only, two results."""
    low, high = x, y
    if x > y:
        low, high = y, x
        if x - y > 2.0:
            return low, low + 2.0
    elif x < -1.0:
        high = high * 3.0
    return low, high


def clipped_bounds(x, y, low, high):
    low, high = ntl.map_elementwise(bounds, x, y)  # noqa: F841


def torch_bounds(x, y):
    swapped = x > y
    low, high = torch.where(swapped, y, x), torch.where(swapped, x, y)
    high = torch.where(swapped & (x - y > 2.0), low + 2.0, high)
    return low, torch.where(~swapped & (x < -1.0), high * 3.0, high)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_branches_with_an_early_return_of_two_values(backend):
    x, y = floats(3), floats(4)
    low, high = run(clipped_bounds, backend, (x, y), (ninetoothed.float32,) * 2)
    expected_low, expected_high = torch_bounds(x, y)
    assert torch.equal(low, expected_low) and torch.equal(high, expected_high)


def collatz_steps(n):
    count = 0
    while n > 1:  # masked-off lanes hold 0, as on Triton: `n != 1` would never end there
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


def steps(n, out):
    out = ntl.map_elementwise(collatz_steps, n)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_while_loop_per_element(backend):
    """Each element loops its own number of times; the loop runs while any element does."""
    g = torch.Generator().manual_seed(5)
    n = torch.randint(1, 100, (SIZE,), generator=g, dtype=torch.int32)
    (out,) = run(steps, backend, (n,), (ninetoothed.int32,))
    assert out.tolist() == [collatz_steps(v) for v in n.tolist()]


def safe_quotient(x, y):
    if y != 0:
        return x // y
    return x * 0 - 1


def quotients(x, y, out):
    out = ntl.map_elementwise(safe_quotient, x, y)  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # Triton's interpreter
def test_a_division_in_a_branch_not_taken_is_harmless(backend):
    """The branch is computed for every element, the zero divisors too: no trap, and the
    elements that take the other branch get its value."""
    g = torch.Generator().manual_seed(6)
    x = torch.randint(-50, 50, (SIZE,), generator=g, dtype=torch.int32)
    y = torch.randint(-3, 4, (SIZE,), generator=g, dtype=torch.int32)
    (out,) = run(quotients, backend, (x, y), (ninetoothed.int32,))
    quotient = torch.div(x, torch.where(y == 0, 1, y), rounding_mode="trunc")
    expected = torch.where(y != 0, quotient, -1)
    assert torch.equal(out, expected.int())


def larger_first(a, i, b, j):
    if a > b:
        return a, i
    elif a == b:
        return a, min(i, j)
    return b, j


def row_argmax(x, out):
    columns = ntl.broadcast_to(ntl.arange(0, x.shape[1])[None, :], x.shape)
    _, index = ntl.reduce((x, columns), 1, larger_first)
    out = index  # noqa: F841


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_combine_function_that_branches(backend):
    """`ntl.reduce`'s function branches per element too: the first index of each row's max."""
    x = torch.randint(0, 5, (SIZE // 4, BLOCK), generator=torch.Generator().manual_seed(7))
    x = x.float()
    kernel = ninetoothed.make(
        lambda x, out: (x.tile((4, BLOCK)), out.tile((4,))),
        row_argmax,
        (Tensor(2), Tensor(1, dtype=ninetoothed.int32)),
        backend=backend,
    )
    out = torch.full((SIZE // 4,), -7, dtype=torch.int32)
    kernel(x, out)
    first = (x == x.amax(1, keepdim=True)).float().argmax(1)
    assert torch.equal(out, first.int())


def returns_in_a_loop(x):
    for _ in range(3):
        if x > 0:
            return x
    return -x


def mixed_kinds(x):
    if x > 0:
        return x, x
    return x


def looped(x, out):
    out = ntl.map_elementwise(returns_in_a_loop, x)  # noqa: F841


def mixed(x, out):
    out = ntl.map_elementwise(mixed_kinds, x)  # noqa: F841


@pytest.mark.parametrize(
    ("application", "message"),
    [
        (looped, r"test_map_elementwise.py:\d+: `return` inside a loop"),
        (mixed, r"test_map_elementwise.py:\d+: the returned value is a Value .* and a tuple"),
    ],
)
def test_what_cannot_be_mapped_is_refused_at_its_line(application, message):
    with pytest.raises(CompileError, match=message):
        run(application, "triton", (floats(8),), (ninetoothed.float32,))
