"""Random chains of meta-operations, built with both libraries, must read the same offsets.

Each case is a rank 1..4 source of sizes 1..9 and 1..4 meta-operations, each applied to a random
level (deeper levels through `.dtype` assignment, as programs do). Parameters are drawn valid for
the concrete sizes; odd cases replay the chain on a source with symbolic sizes.
"""

import random

import ninetoothed
import numpy as np
import pytest

from compiler import dsl
from compiler.dsl.evaluate import evaluate

CASES = 260

# NineToothed's eval costs a few milliseconds per position of the levels above the innermost.
MAX_OUTER_POSITIONS = 24


def levels(tensor):
    result = [tensor]
    while isinstance(result[-1].dtype, type(tensor)):
        result.append(result[-1].dtype)
    return result


def call(tensor, op, args):
    return tensor[args] if op == "getitem" else getattr(tensor, op)(*args)


def build(lib, shape, steps, symbolic):
    source = lib.Tensor(len(shape)) if symbolic else lib.Tensor(shape=shape)
    tensor = source
    for level, op, args in steps:
        if level == 0:
            tensor = call(tensor, op, args)
        else:
            holder = levels(tensor)[level - 1]
            holder.dtype = call(holder.dtype, op, args)
    return tensor, {source: {"shape": shape}}


def tile(rng, shape):
    tile_shape = tuple(rng.choice([-1, rng.randint(1, size + 1)]) for size in shape)
    strides = rng.choice([None, tuple(rng.choice([-1, 1, 2, 3]) for _ in shape)])
    dilation = rng.choice([None, tuple(rng.choice([1, 1, 2]) for _ in shape)])
    return tile_shape, strides, dilation, rng.random() < 0.3


def expand(rng, shape):
    if 1 not in shape:
        return None
    return (tuple(rng.randint(1, 4) if size == 1 and rng.random() < 0.7 else -1 for size in shape),)


def squeeze(rng, shape):
    ones = [dim for dim, size in enumerate(shape) if size == 1]
    if not ones:
        return None
    dims = tuple(rng.sample(ones, rng.randint(1, len(ones))))
    return (dims[0] if len(dims) == 1 and rng.random() < 0.5 else dims,)


def unsqueeze(rng, shape):
    return (rng.randint(0, len(shape)),)


def permute(rng, shape):
    return (tuple(rng.sample(range(len(shape)), len(shape))),) if shape else None


def flatten(rng, shape):
    if not shape:
        return None
    start = rng.randrange(len(shape))
    end = rng.randint(start + 1, len(shape))
    return (None if start == 0 and rng.random() < 0.5 else start, end)


def ravel(rng, shape):
    return ()


def pad(rng, shape):
    return (tuple((rng.randint(0, 2), rng.randint(0, 2)) for _ in shape),)


def getitem(rng, shape):
    items = []
    for size in shape[: rng.randint(0, len(shape))]:
        if rng.random() < 0.3:
            items.append(rng.randrange(size))
        else:
            start = rng.choice([None, rng.randint(-size, size - 1)])
            stop = rng.choice([None, rng.randint(-size, size + 2)])
            items.append(slice(start, stop, rng.choice([None, 1, 2, -1, -2])))
    for extra in (None, Ellipsis):
        if rng.random() < 0.3:
            items.insert(rng.randint(0, len(items)), extra)
    return tuple(items)


# Tiles are drawn twice as often: they create the levels that nested steps act on.
OPS = (tile, tile, expand, squeeze, unsqueeze, permute, flatten, ravel, pad, getitem)


def sizes_valid(tensor):
    return all(size >= 1 for level in levels(tensor) for size in level.shape)


def draw_chain(rng):
    """A source shape and a chain of (level, op, args) that both libraries can evaluate."""
    while True:
        shape = tuple(rng.randint(1, 9) for _ in range(rng.randint(1, 4)))
        steps, length = [], rng.randint(1, 4)
        while len(steps) < length:
            tensor, _ = build(dsl, shape, steps, symbolic=False)
            level = rng.randrange(len(levels(tensor)))
            op = rng.choice(OPS)
            args = op(rng, levels(tensor)[level].shape)
            if args is None:
                continue
            candidate = [*steps, (level, op.__name__, args)]
            try:
                tensor, _ = build(dsl, shape, candidate, symbolic=False)
            except (ValueError, IndexError):
                continue
            if sizes_valid(tensor):
                steps = candidate
        tensor, _ = build(dsl, shape, steps, symbolic=False)
        if tensor.innermost().ndim == 0:
            # NineToothed's eval needs an innermost level with at least one dimension.
            steps.append((len(levels(tensor)) - 1, "unsqueeze", (0,)))
        outer_positions = 1
        for level in levels(tensor)[:-1]:
            for size in level.shape:
                outer_positions *= size
        if outer_positions > MAX_OUTER_POSITIONS:
            continue
        # NineToothed's eval cannot place two inserted (unsqueezed) innermost dimensions.
        target_dims = levels(build(ninetoothed, shape, steps, symbolic=False)[0])[-1].target_dims
        if len(set(target_dims)) == len(target_dims):
            return shape, steps


def draw_case(rng, symbolic):
    """A chain and NineToothed's evaluation of it."""
    while True:
        shape, steps = draw_chain(rng)
        tensor, subs = build(ninetoothed, shape, steps, symbolic)
        try:
            return shape, steps, tensor.eval(subs)
        except TypeError as error:
            # NineToothed's Symbol lacks unary minus and reflected `//`, so its eval fails when a
            # literal index 0 (an outer position, a squeezed or expanded dimension) is padded or
            # unraveled; draw another chain.
            if "Symbol" not in str(error):
                raise


@pytest.mark.parametrize("seed", range(CASES))
def test_random_arrangement(seed):
    symbolic = seed % 2 == 1
    shape, steps, expected = draw_case(random.Random(seed), symbolic)
    tensor, subs = build(dsl, shape, steps, symbolic)
    actual = evaluate(tensor, subs)
    context = f"source shape {shape}, symbolic {symbolic}, steps {steps}"
    assert actual.shape == expected.shape, context
    np.testing.assert_array_equal(actual, expected, err_msg=context)


@pytest.mark.parametrize("seed", range(1, CASES, 8))
def test_substituted_arrangement_reads_the_same(seed):
    """`ninetoothed.subs` fixes the sizes of a symbolic chain: `Tensor.eval()` then needs no subs
    and reads what NineToothed's eval of the symbolic chain reads; shapes become ints."""
    shape, steps, expected = draw_case(random.Random(seed), symbolic=True)
    tensor, subs = build(dsl, shape, steps, symbolic=True)
    fixed = dsl.subs(tensor, subs)
    assert all(isinstance(size, int) for level in levels(fixed) for size in level.shape)
    context = f"source shape {shape}, steps {steps}"
    np.testing.assert_array_equal(fixed.eval(), expected, err_msg=context)
    np.testing.assert_array_equal(dsl.eval(tensor, subs), expected, err_msg=context)
