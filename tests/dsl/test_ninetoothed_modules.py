"""NineToothed's modules as `compiler.dsl.<name>` and, bound, `ninetoothed.<name>`: naming,
generation, auto_tuner and debugging, each checked against NineToothed 0.26 where it can answer on
the CPU, else against what the module promises."""

import functools
import importlib
import time

import ninetoothed
import numpy as np
import pytest
import torch

from compiler import dsl
from compiler.cli.program import ninetoothed_bound
from compiler.dsl import auto_tuner, debugging, naming, visualization
from compiler.errors import CompileError

NAMES = ("x", "BLOCK_SIZE_M", "ninetoothed_name", "a_b_c", "input_0")


@pytest.mark.parametrize("name", NAMES)
def test_naming_matches_ninetoothed(name):
    theirs = importlib.import_module("ninetoothed.naming")
    for make in ("make_constexpr", "make_meta", "make_next_power_of_2"):
        once = getattr(naming, make)(name)
        assert once == getattr(theirs, make)(name)
        for outer in ("make_constexpr", "make_meta", "make_next_power_of_2"):
            twice = getattr(naming, outer)(once)
            assert twice == getattr(theirs, outer)(once)
            for check in ("is_constexpr", "is_meta", "is_next_power_of_2", "remove_prefixes"):
                assert getattr(naming, check)(twice) == getattr(theirs, check)(twice), (
                    check,
                    twice,
                )


def test_submodules_import_under_the_binding():
    with ninetoothed_bound("tvm"):
        import ninetoothed as bound
        import ninetoothed.generation as generation
        from ninetoothed.auto_tuner import AutoTuner
        from ninetoothed.debugging import simulate_arrangement

        assert bound.naming is naming and generation.CACHE_DIR.name
        assert AutoTuner is auto_tuner.AutoTuner
        assert simulate_arrangement is debugging.simulate_arrangement
        assert bound.make.keywords == {"backend": "tvm"}


def _slow(delay, *args, **kwargs):
    time.sleep(delay * (len(args) + len(kwargs)))
    return delay


@pytest.fixture
def tuner_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_auto_tuner_picks_the_fastest_and_remembers_it_on_disk(tuner_cache):
    calls = []

    def counted(delay):
        def run(*args, **kwargs):
            calls.append(delay)
            return _slow(delay, *args, **kwargs)

        return run

    fast, slow = counted(0.001), counted(0.004)
    tuner = auto_tuner.AutoTuner((slow, fast), ("slow", "fast"))
    assert not tuner._cache_path.exists()
    assert tuner(1, 2, b=3) == 0.001
    assert tuner._cache_path.exists() and tuner._get_func_cache_path(fast).exists()
    assert tuner._best_func[tuner._make_arg_key((1, 2), {"b": 3})] is fast
    calls.clear()
    assert tuner(1, 2, b=3) == 0.001 and calls == [0.001]  # remembered: one call, no timing
    again = auto_tuner.AutoTuner((slow, fast), ("slow", "fast"))
    assert again(1, 2, b=3) == 0.001 and calls == [0.001, 0.001]  # from disk: no timing either
    # Tensors are keyed by dtype and shape, not values.
    key = auto_tuner.AutoTuner._make_arg_key
    assert key((torch.zeros(2, 3),), {}) == key((torch.ones(2, 3),), {})
    assert key((torch.zeros(2, 3),), {}) != key((torch.zeros(3, 2),), {})


def test_auto_tuner_takes_one_key_per_function():
    with pytest.raises(ValueError, match="one key per function"):
        auto_tuner.AutoTuner((print,), ("a", "b"))


def _matmul_like(lib, lhs, rhs, output, block=2):
    output_tiled = output.tile((block, block))
    lhs_tiled = lhs.tile((block, block)).tile((1, -1)).expand((-1, output_tiled.shape[1]))
    lhs_tiled.dtype = lhs_tiled.dtype.squeeze(0)
    rhs_tiled = rhs.tile((block, block)).tile((-1, 1)).expand((output_tiled.shape[0], -1))
    rhs_tiled.dtype = rhs_tiled.dtype.squeeze(1)
    return lhs_tiled, rhs_tiled, output_tiled


@pytest.mark.parametrize("m, n, k, block", [(3, 4, 5, 2), (5, 3, 7, 4), (1, 1, 1, 1)])
def test_simulate_arrangement_answers_what_ninetoothed_evaluates(m, n, k, block):
    def tensors(lib):
        return (lib.Tensor(shape=(m, k)), lib.Tensor(shape=(k, n)), lib.Tensor(shape=(m, n)))

    ours = functools.partial(_matmul_like, dsl, block=block)
    sources, targets = debugging.simulate_arrangement(ours, tensors(dsl), device="cpu")
    theirs = _matmul_like(ninetoothed, *tensors(ninetoothed), block=block)
    for source, shape in zip(sources, [(m, k), (k, n), (m, n)], strict=True):
        assert torch.equal(source, torch.arange(source.numel()).view(shape))
    for target, arranged in zip(targets, theirs, strict=True):
        np.testing.assert_array_equal(target.numpy(), arranged.flatten().eval())


def test_simulate_arrangement_of_a_scalar_and_of_unsized_tensors():
    def arrangement(x, alpha):
        return x.tile((2,)), alpha

    sources, targets = debugging.simulate_arrangement(
        arrangement, (dsl.Tensor(shape=(3,)), dsl.Tensor(0))
    )
    assert torch.equal(targets[0], torch.tensor([[0, 1], [2, -1]]))
    assert sources[1].item() == 0 and targets[1].item() == 0
    with pytest.raises(CompileError, match=r"tensor 0 has sizes .* give each Tensor its shape"):
        debugging.simulate_arrangement(arrangement, (dsl.Tensor(1), dsl.Tensor(0)))


def _greys(path) -> int:
    """How many pixels of a picture are the colour of masked positions."""
    import matplotlib.image

    pixels = matplotlib.image.imread(path)[..., :3]
    grey = np.array([0xC8, 0xC8, 0xC8]) / 255
    return int(np.all(np.abs(pixels - grey) < 0.02, axis=-1).sum())


def test_visualize_arrangement_greys_exactly_the_masked_positions(tmp_path):
    def tiled(x):
        return (x.tile((2, 2)),)

    ragged, exact = tmp_path / "ragged.png", tmp_path / "exact.png"
    visualization.visualize_arrangement(tiled, (dsl.Tensor(shape=(3, 5)),), save_path=ragged)
    visualization.visualize_arrangement(tiled, (dsl.Tensor(shape=(4, 4)),), save_path=exact)
    assert _greys(ragged) > 0 and _greys(exact) == 0


def test_visualize_draws_every_level_and_needs_sizes(tmp_path):
    import matplotlib.image

    flat, nested = tmp_path / "flat.png", tmp_path / "nested.png"
    visualization.visualize(dsl.Tensor(shape=(4, 4)), save_path=flat)
    visualization.visualize(dsl.Tensor(shape=(4, 4)).tile((2, 2)), save_path=nested)
    assert matplotlib.image.imread(nested).shape[0] > matplotlib.image.imread(flat).shape[0]
    with pytest.raises(ValueError, match="visualize needs every size"):
        visualization.visualize(dsl.Tensor(2), save_path=flat)
