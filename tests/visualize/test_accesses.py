"""What `ntc visualize` says a program touches, against what the arrangement means.

The accesses come from the compiled kernel run in the IR interpreter; each expectation here is
worked out independently from the arrangement's semantics (tile grids in row-major program order,
the loop over the K or key blocks, conv2d's receptive fields), with ragged sizes."""

import itertools
import math

import numpy as np
import pytest
import torch

from compiler.ir import parse_kernel
from compiler.ir.interpreter import run_kernel
from compiler.runtime.bindings import grid_size
from compiler.suite import SUITE
from compiler.suite.checking import build
from compiler.visualize import VisualizeError, file_accesses, program_accesses


def _blocks(index: int, block: int, size: int) -> range:
    return range(index * block, min((index + 1) * block, size))


def _cells(*ranges) -> set[tuple[int, ...]]:
    return set(itertools.product(*ranges))


def _handle(name: str):
    return build(SUITE[name], "triton")


def test_vector_add_program_p_touches_its_block_of_every_tensor():
    handle, n, block = _handle("vector_add"), 1000, 64
    args = [torch.randn(n), torch.randn(n), torch.empty(n)]
    for pid in (0, 7, 15):
        accesses = program_accesses(handle, args, {}, pid=pid)
        assert (accesses.grid, accesses.trip_count) == (math.ceil(n / block), 0)
        want = _cells(_blocks(pid, block, n))
        assert accesses.tensor("input").coords("load") == want
        assert accesses.tensor("other").coords("load") == want
        assert accesses.tensor("output").coords("store") == want
        assert not accesses.tensor("output").coords("load")
        assert not accesses.tensor("input").coords("store")


def test_matmul_tiles_and_k_blocks_per_loop_iteration():
    handle, (m, k, n), block = _handle("matmul"), (40, 50, 30), 16
    args = [torch.randn(m, k), torch.randn(k, n), torch.empty(m, n)]
    tiles_n, k_blocks = math.ceil(n / block), math.ceil(k / block)
    for pid in range(math.ceil(m / block) * tiles_n):
        row_tile, col_tile = divmod(pid, tiles_n)  # the output's tiles, row-major
        rows, cols = _blocks(row_tile, block, m), _blocks(col_tile, block, n)
        everything = program_accesses(handle, args, {}, pid=pid)
        assert everything.trip_count == k_blocks
        assert everything.tensor("output").coords("store") == _cells(rows, cols)
        assert everything.tensor("input").coords("load") == _cells(rows, range(k))
        assert everything.tensor("other").coords("load") == _cells(range(k), cols)
        for step in range(k_blocks):
            accesses = program_accesses(handle, args, {}, pid=pid, loop=step)
            ks = _blocks(step, block, k)
            assert accesses.tensor("input").coords("load") == _cells(rows, ks)
            assert accesses.tensor("other").coords("load") == _cells(ks, cols)
            # The store follows the loop: it counts for every iteration.
            assert accesses.tensor("output").coords("store") == _cells(rows, cols)
            light = accesses.tensor("input").coords("load", at_iteration=False)
            assert light == _cells(rows, range(k))


def test_conv2d_output_tile_and_receptive_fields():
    entry = SUITE["conv2d"]
    handle = _handle("conv2d")
    (stride_h, stride_w), (pad_h, pad_w) = entry.arrangement_kwargs["stride"], (1, 1)
    assert entry.arrangement_kwargs["padding"] == (pad_h, pad_w)
    block_m, block_k = (entry.arrangement_kwargs[f"BLOCK_SIZE_{d}"] for d in "MK")
    x, w, out = entry.make_args(0, ragged=True)
    (batch, channels, height, width), (filters, _, r_size, s_size) = x.shape, w.shape
    _, _, p_size, q_size = out.shape
    gemm_k = channels * r_size * s_size
    for pid in range(math.ceil(batch * p_size * q_size / block_m)):
        pixels = [
            np.unravel_index(row, (batch, p_size, q_size))
            for row in _blocks(pid, block_m, batch * p_size * q_size)
        ]
        everything = program_accesses(handle, [x, w, out], {}, pid=pid)
        stored = {(b, f, p, q) for b, p, q in pixels for f in range(filters)}
        assert everything.tensor("output").coords("store") == stored
        for step in range(everything.trip_count):
            columns = [np.unravel_index(j, (channels, r_size, s_size)) for j in range(gemm_k)]
            columns = columns[step * block_k : (step + 1) * block_k]
            field = set()
            for (b, p, q), (c, r, s) in itertools.product(pixels, columns):
                h, v = p * stride_h - pad_h + r, q * stride_w - pad_w + s
                if 0 <= h < height and 0 <= v < width:  # padding is never loaded
                    field.add((b, c, h, v))
            accesses = program_accesses(handle, [x, w, out], {}, pid=pid, loop=step)
            assert accesses.tensor("input").coords("load") == field
            weights = {(f, *column) for f in range(filters) for column in columns}
            assert accesses.tensor("weight").coords("load") == weights
        # Over all iterations: the whole receptive field of the output tile.
        field = {
            (b, c, p * stride_h - pad_h + r, q * stride_w - pad_w + s)
            for (b, p, q) in pixels
            for c, r, s in itertools.product(range(channels), range(r_size), range(s_size))
        }
        field = {e for e in field if 0 <= e[2] < height and 0 <= e[3] < width}
        assert everything.tensor("input").coords("load") == field


@pytest.mark.parametrize("is_causal", [False, True])
def test_attention_query_block_and_key_blocks(is_causal):
    handle, block = _handle("flash_attention"), 16
    shape = (2, 3, 43, 16)
    q, k, v = (torch.randn(shape).half() for _ in range(3))
    args, kwargs = [q, k, v, 0.25, torch.empty(shape).half()], {"is_causal": is_causal}
    m_blocks = math.ceil(shape[2] / block)
    grid = shape[0] * shape[1] * m_blocks
    for pid in (0, 4, grid - 1):
        b, h, m = np.unravel_index(pid, (shape[0], shape[1], m_blocks))
        queries = _cells([b], [h], _blocks(m, block, shape[2]), range(shape[3]))
        for step in range(m_blocks):  # the loop runs over every key block
            accesses = program_accesses(handle, args, kwargs, pid=pid, loop=step)
            assert (accesses.grid, accesses.trip_count) == (grid, m_blocks)
            assert accesses.tensor("q").coords("load") == queries
            assert accesses.tensor("o").coords("store") == queries
            keys = _cells([b], [h], _blocks(step, block, shape[2]), range(shape[3]))
            assert accesses.tensor("k").coords("load") == keys
            assert accesses.tensor("v").coords("load") == keys
            everything = _cells([b], [h], range(shape[2]), range(shape[3]))
            assert accesses.tensor("k").coords("load", at_iteration=False) == everything


@pytest.mark.parametrize("name", ["vector_add", "matmul", "conv2d", "flash_attention"])
def test_every_output_element_is_stored_by_exactly_one_program(name):
    entry, handle = SUITE[name], _handle(name)
    args = entry.make_args(0, ragged=True)
    output = handle.tensors[entry.outputs[0]].name
    counts = np.zeros(args[entry.outputs[0]].shape, int)
    first = program_accesses(handle, args, entry.call_kwargs, pid=0)
    for pid in range(first.grid):
        accesses = program_accesses(handle, args, entry.call_kwargs, pid=pid)
        counts += accesses.tensor(output).now["store"]
    assert (counts == 1).all()


@pytest.mark.parametrize("name", ["vector_add", "matmul", "conv2d", "flash_attention"])
def test_the_interpreter_computes_what_torch_does_on_the_final_ssa(name):
    """The accesses are only as truthful as the interpreter: it runs the final tile-level SSA of
    each kernel to torch's answer."""
    entry, handle = SUITE[name], _handle(name)
    args = entry.make_args(0, ragged=True)
    expected = entry.reference(args)
    artifact = handle.compile(*args, **entry.call_kwargs)
    bindings = handle.bindings(*args, **entry.call_kwargs)
    kernel = parse_kernel(artifact.ssa)
    values = {
        a.name: bindings[a.name].view(-1).numpy()
        if isinstance(bindings[a.name], torch.Tensor)
        else bindings[a.name]
        for a in kernel.args
    }
    with np.errstate(all="ignore"):
        run_kernel(kernel, values, artifact.schedule, grid_size(artifact, bindings))
    for index, want in zip(entry.outputs, expected, strict=True):
        got = args[index].double()
        assert torch.allclose(got, want.double(), rtol=entry.rtol, atol=entry.atol), name


def test_out_of_range_pid_and_loop_name_the_valid_range():
    handle = _handle("matmul")
    args = [torch.randn(32, 32), torch.randn(32, 32), torch.empty(32, 32)]
    with pytest.raises(VisualizeError, match=r"runs 4 programs.*valid program ids: 0\.\.3"):
        program_accesses(handle, args, {}, pid=4)
    with pytest.raises(VisualizeError, match=r"runs 2 iterations.*valid loop iterations: 0\.\.1"):
        program_accesses(handle, args, {}, pid=0, loop=2)
    with pytest.raises(VisualizeError, match="has no loop"):
        program_accesses(_handle("vector_add"), [torch.randn(8)] * 3, {}, pid=0, loop=0)


def test_a_file_outside_the_suite_takes_shapes_defines_and_strided_views(tmp_path):
    program = tmp_path / "scaled_copy.py"
    program.write_text(
        "from ninetoothed import Tensor, block_size\n"
        "def arrangement(x, alpha, y, BLOCK=block_size()):\n"
        "    return x.tile((1, BLOCK)), alpha, y.tile((1, BLOCK))\n"
        "def application(x, alpha, y):\n"
        "    y = x * alpha  # noqa: F841\n"
        "tensors = (Tensor(2), Tensor(0), Tensor(2))\n"
    )
    accesses = file_accesses(
        str(program), pid=5, shapes=["x=3x40", "y=3x40"], defines=["BLOCK=16", "alpha=2.5"]
    )
    assert accesses.grid == 3 * 3
    row, col = divmod(5, 3)
    want = _cells([row], _blocks(col, 16, 40))
    assert accesses.tensor("x").coords("load") == want
    assert accesses.tensor("y").coords("store") == want
    with pytest.raises(VisualizeError, match=r"--shape y=16x16"):
        file_accesses(str(program), pid=0, shapes=["x=3x40"])
    with pytest.raises(VisualizeError, match=r"x has 2 dims.*--shape x=16x16"):
        file_accesses(str(program), pid=0, shapes=["x=40", "y=3x40"])


def test_strides_map_offsets_back_to_coordinates():
    handle = _handle("matmul")
    a = torch.randn(32, 48).t()  # a transposed view: shape (48, 32), strides (1, 48)
    args = [a, torch.randn(32, 32), torch.empty(48, 32)]
    accesses = program_accesses(handle, args, {}, pid=3, loop=1)
    assert accesses.tensor("input").coords("load") == _cells(range(16, 32), range(16, 32))
