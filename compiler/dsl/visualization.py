"""`ninetoothed.visualization`: pictures of arrangements, as NineToothed teaches them.

- `visualize(tensor)` draws an arranged tensor level by level, outermost on top: each level is a
  grid of its shape (a row for one dimension, a matrix for two, the leading dimensions stacked as
  rows for more), joined to the level below by dashed lines from its first cell, so one sees what
  a program gets (one cell of the top level) and what that cell holds (the level below).
- `visualize_arrangement(arrangement, tensors)` draws, for each tensor, its source with every
  element coloured by its index and the arranged tensor (programs flattened, then the inner
  levels) in the colour of the element each position reads; masked positions are grey. The
  positions come from `simulate_arrangement`.

Sizes must be known: give Tensors their shapes and block sizes their values (`Tensor(shape=(4,
8))`, `tile((2, 2))` or `.subs(...)`).
"""

from __future__ import annotations

import math

import numpy as np

from compiler.dsl.debugging import simulate_arrangement
from compiler.dsl.tensor import Tensor

LEVEL_SPACING = 2  # empty rows between levels
MASKED = "#c8c8c8"


def visualize(tensor: Tensor, color=None, save_path=None):
    """Draw `tensor`'s levels; save to `save_path` (else show it). Returns the figure."""
    if color is None:
        color = f"C{visualize.count % 10}"
    shapes = [_grid_shape(level) for level in tensor.levels()]
    width = max(cols for _, cols in shapes)
    height = sum(rows for rows, _ in shapes) + LEVEL_SPACING * (len(shapes) - 1)
    figure, axes = _figure(width, height)
    top = 0
    for index, (rows, cols) in enumerate(shapes):
        _grid(axes, top, rows, cols, np.full((rows, cols), color, dtype=object))
        if index + 1 < len(shapes):
            below = top + rows + LEVEL_SPACING
            inner_cols = shapes[index + 1][1]
            axes.plot([0, 0], [top + 1, below], "k--", linewidth=0.8)
            axes.plot([1, inner_cols], [top + 1, below], "k--", linewidth=0.8)
        top += rows + LEVEL_SPACING
    visualize.count += 1
    return _finish(figure, save_path)


visualize.count = 0


def visualize_arrangement(arrangement, tensors, save_path=None):
    """Draw each tensor's source and its arrangement, coloured by source element."""
    sources, targets = simulate_arrangement(arrangement, tensors, device="cpu")
    panels = []
    for source, target in zip(sources, targets, strict=True):
        panels.append(_as_rows(source.numpy()))
        panels.append(_as_rows(target.numpy()))
    width = max(p.shape[1] for p in panels)
    height = sum(p.shape[0] for p in panels) + LEVEL_SPACING * (len(panels) - 1)
    figure, axes = _figure(width, height)
    top = 0
    for panel in panels:
        count = max(int(panel.max()) + 1, 1)
        colours = np.empty(panel.shape, dtype=object)
        for (row, col), value in np.ndenumerate(panel):
            colours[row, col] = MASKED if value < 0 else _pyplot().cm.viridis(value / count)
        _grid(axes, top, *panel.shape, colours)
        top += panel.shape[0] + LEVEL_SPACING
    return _finish(figure, save_path)


def _grid_shape(level: Tensor) -> tuple[int, int]:
    sizes = []
    for size in level.shape:
        if not isinstance(size, int):
            raise ValueError(
                f"visualize needs every size, and {size} has no value; give the Tensor its shape "
                "and the block sizes their values (or call .subs({...}) first)"
            )
        sizes.append(size)
    if not sizes:
        return 1, 1
    return math.prod(sizes[:-1]), sizes[-1]


def _as_rows(values: np.ndarray) -> np.ndarray:
    if values.ndim == 0:
        return values.reshape(1, 1)
    return values.reshape(-1, values.shape[-1])


def _pyplot():
    """matplotlib's pyplot, imported on the first picture: `import ninetoothed` stays quick."""
    import matplotlib.pyplot

    return matplotlib.pyplot


def _figure(width: int, height: int):
    scale = min(0.3, 12 / max(width, height, 1))
    figure = _pyplot().figure(figsize=(width * scale + 0.2, height * scale + 0.2))
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(-0.1, width + 0.1)
    axes.set_ylim(height + 0.1, -0.1)
    axes.set_aspect("equal")
    axes.axis("off")
    return figure, axes


def _grid(axes, top: int, rows: int, cols: int, colours: np.ndarray) -> None:
    for row in range(rows):
        for col in range(cols):
            axes.add_patch(
                _pyplot().Rectangle(
                    (col, top + row), 1, 1, facecolor=colours[row, col], edgecolor="black",
                    linewidth=0.5,
                )
            )  # fmt: skip


def _finish(figure, save_path):
    if save_path is None:
        _pyplot().show()
        return figure
    figure.savefig(save_path, bbox_inches="tight", pad_inches=0.05)
    _pyplot().close(figure)
    return figure
