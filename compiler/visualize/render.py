"""Draws `ProgramAccesses` as a PNG: one panel per tensor, one cell per element.

A 2-D tensor is its matrix; a 1-D tensor is one row, wrapped into rows of a fixed width; a tensor
of more dims is a grid of blocks, one block (a `size[-2] x size[-1]` matrix) per index of the
leading dims, in row-major order, each labelled with that index where the label fits. Cell
geometry is exact and exposed (`Picture.pixel`) so a test can read the colour of any element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from compiler.visualize.accesses import KINDS, ProgramAccesses, TensorAccesses, VisualizeError

MAX_ELEMENTS = 1 << 20
UNTOUCHED = "#e4e4e4"
BACKGROUND = "#ffffff"
# (loaded, stored) -> colour, at the chosen iteration and at other iterations of this program.
NOW = {(True, False): "#1f5fb4", (False, True): "#d62728", (True, True): "#8e44ad"}
OTHER = {(True, False): "#a9c8ec", (False, True): "#f3b3b3", (True, True): "#d7bfe6"}

_DPI = 100
_TITLE_PX, _TICKS_PX, _LEFT_PX, _RIGHT_PX = 46, 26, 46, 18
_HEADER_PX, _FOOTER_PX, _MAX_ROW_PX, _TITLE_CHAR_PX = 60, 64, 1600, 7


@dataclass(frozen=True)
class GridLayout:
    """Where each element of a tensor of `shape` sits, in cells (row, col) of the panel."""

    shape: tuple[int, ...]
    rows: int
    cols: int
    wrap: int = 0  # 1-D: elements per row
    blocks_per_row: int = 0  # ndim > 2: blocks per row of blocks
    gap: int = 0  # ndim > 2: empty cells around each block (room for its label)

    @classmethod
    def of(cls, shape: tuple[int, ...], gap: int = 1) -> GridLayout:
        if len(shape) == 1:
            n = shape[0]
            wrap = n if n <= 64 else max(64, 64 * math.ceil(math.sqrt(2 * n) / 64))
            return cls(shape, math.ceil(n / wrap) if n else 0, min(wrap, n), wrap=wrap)
        if len(shape) == 2:
            return cls(shape, shape[0], shape[1])
        height, width, count = shape[-2], shape[-1], math.prod(shape[:-2])

        def extent(per_row: int) -> tuple[int, int]:
            block_rows = math.ceil(count / per_row)
            return block_rows * (height + gap), per_row * (width + gap) - gap

        def badness(per_row: int) -> float:
            rows, cols = extent(per_row)
            return abs(math.log(max(cols, 1) / max(rows, 1) / 1.6))

        # Rows of blocks that line up with the innermost leading dim read best.
        inner = shape[-3]
        aligned = [
            p for p in range(1, count + 1) if count % p == 0 and (p % inner == 0 or inner % p == 0)
        ]
        per_row = min(aligned, key=badness)
        rows, cols = extent(per_row)
        return cls(shape, rows, cols, blocks_per_row=per_row, gap=gap)

    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """(row, col) of every element, in row-major element order."""
        index = np.indices(self.shape).reshape(len(self.shape), -1)
        if len(self.shape) == 1:
            return index[0] // self.wrap, index[0] % self.wrap
        if len(self.shape) == 2:
            return index[0], index[1]
        block = np.ravel_multi_index(tuple(index[:-2]), self.shape[:-2])
        block_row, block_col = np.divmod(block, self.blocks_per_row)
        row = self.gap + block_row * (self.shape[-2] + self.gap) + index[-2]
        col = block_col * (self.shape[-1] + self.gap) + index[-1]
        return row, col

    def cell(self, coord: tuple[int, ...]) -> tuple[int, int]:
        flat = int(np.ravel_multi_index(tuple(coord), self.shape))
        rows, cols = self.cells()
        return int(rows[flat]), int(cols[flat])

    def block_rows(self) -> list[tuple[tuple[int, ...], float]]:
        """ndim > 2: (leading index of its first block, centre row) per row of blocks."""
        leading = list(np.ndindex(*self.shape[:-2]))[:: self.blocks_per_row]
        step = self.shape[-2] + self.gap
        return [
            (index, self.gap + r * step + self.shape[-2] / 2) for r, index in enumerate(leading)
        ]

    def blocks(self) -> list[tuple[tuple[int, ...], float, float]]:
        """ndim > 2: (leading index, centre col, row of the label) per block."""
        out = []
        for block, leading in enumerate(np.ndindex(*self.shape[:-2])):
            block_row, block_col = divmod(block, self.blocks_per_row)
            top = block_row * (self.shape[-2] + self.gap)
            centre = block_col * (self.shape[-1] + self.gap) + self.shape[-1] / 2
            out.append((leading, centre, top + self.gap / 2))
        return out


@dataclass
class Panel:
    tensor: TensorAccesses
    layout: GridLayout
    title: str = ""
    box: tuple[float, float, float, float] = (0, 0, 0, 0)  # image area: left, top, width, height


@dataclass
class Picture:
    """The PNG written, with the pixel (x right, y down) at the centre of any element's cell."""

    path: Path
    width: int
    height: int
    cell_px: float
    panels: dict[str, Panel] = field(default_factory=dict)

    def pixel(self, tensor: str, coord: tuple[int, ...]) -> tuple[int, int]:
        panel = self.panels[tensor]
        row, col = panel.layout.cell(coord)
        left, top, width, height = panel.box
        x = left + (col + 0.5) * width / panel.layout.cols
        y = top + (row + 0.5) * height / panel.layout.rows
        return int(x), int(y)


def render(accesses: ProgramAccesses, path: str | Path) -> Picture:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    shaped = [t for t in accesses.tensors if t.shape and math.prod(t.shape)]
    for tensor in shaped:
        if math.prod(tensor.shape) > MAX_ELEMENTS:
            raise VisualizeError(
                f"{tensor.name} has {math.prod(tensor.shape)} elements, too many to draw one cell "
                f"each (at most {MAX_ELEMENTS}); give smaller shapes with --shape"
            )
    layouts = [GridLayout.of(t.shape) for t in shaped]
    cell_px = _cell_px(layouts)
    gap = max(1, math.ceil(15 / cell_px))
    panels = [Panel(t, GridLayout.of(t.shape, gap), _title(t, accesses.loop)) for t in shaped]
    width, height = _place(panels, cell_px)

    figure = plt.figure(figsize=(width / _DPI, height / _DPI), dpi=_DPI)
    for panel in panels:
        _draw_panel(figure, panel, cell_px, width, height)
    figure.text(0.5, 1 - 22 / height, _headline(accesses), ha="center", va="center", fontsize=13)
    handles = [Patch(facecolor=c, edgecolor="#888888", label=t) for t, c in _legend(accesses)]
    figure.legend(
        handles=handles,
        loc="center",
        bbox_to_anchor=(0.5, 40 / height),
        ncol=min(len(handles), 4),
        frameon=False,
        fontsize=9,
    )
    if accesses.loop is not None:
        figure.text(
            0.5,
            10 / height,
            "an access outside the loop counts for every iteration",
            ha="center",
            va="center",
            fontsize=8,
            color="#555555",
        )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=_DPI, facecolor=BACKGROUND)
    plt.close(figure)
    return Picture(path, width, height, cell_px, {p.tensor.name: p for p in panels})


def _cell_px(layouts: list[GridLayout]) -> float:
    largest = max((max(layout.rows, layout.cols) for layout in layouts), default=1)
    return float(min(14, max(1, 560 / largest)))


def _place(panels: list[Panel], cell_px: float) -> tuple[int, int]:
    """Pack panels into rows (left to right, a new row when one gets too wide); a panel is as
    wide as its image or its title, whichever is wider."""

    def slot(panel: Panel) -> float:
        title = max(len(line) for line in panel.title.split("\n")) * _TITLE_CHAR_PX
        return _LEFT_PX + max(panel.layout.cols * cell_px, title) + _RIGHT_PX

    rows: list[list[Panel]] = [[]]
    row_width = 0.0
    for panel in panels:
        if rows[-1] and row_width + slot(panel) > _MAX_ROW_PX:
            rows.append([])
            row_width = 0.0
        rows[-1].append(panel)
        row_width += slot(panel)
    total_width, top = 0.0, float(_HEADER_PX)
    for row in rows:
        left, tallest = 0.0, 0.0
        for panel in row:
            image_w, image_h = panel.layout.cols * cell_px, panel.layout.rows * cell_px
            panel.box = (left + _LEFT_PX, top + _TITLE_PX, image_w, image_h)
            left += slot(panel)
            tallest = max(tallest, _TITLE_PX + image_h + _TICKS_PX)
        total_width, top = max(total_width, left), top + tallest + 8
    return int(math.ceil(max(total_width, 720))), int(math.ceil(top + _FOOTER_PX))


def _colours(tensor: TensorAccesses, layout: GridLayout) -> np.ndarray:
    """The panel as an RGB image, one pixel per cell."""
    from matplotlib.colors import to_rgb

    palette = [BACKGROUND, UNTOUCHED, *OTHER.values(), *NOW.values()]
    codes = np.zeros((layout.rows, layout.cols), np.int64)  # background where no element sits
    loaded, stored = (tensor.program[k].reshape(-1) for k in KINDS)
    loaded_now, stored_now = (tensor.now[k].reshape(-1) for k in KINDS)
    code = np.ones(loaded.shape, np.int64)
    for index, key in enumerate(OTHER, start=2):
        code[(loaded == key[0]) & (stored == key[1])] = index
    for index, key in enumerate(NOW, start=2 + len(OTHER)):
        code[(loaded_now == key[0]) & (stored_now == key[1])] = index
    codes[layout.cells()] = code
    return np.array([to_rgb(c) for c in palette])[codes]


def _draw_panel(figure, panel: Panel, cell_px: float, width: int, height: int) -> None:
    tensor, layout = panel.tensor, panel.layout
    left, top, image_w, image_h = panel.box
    axes = figure.add_axes(
        (left / width, 1 - (top + image_h) / height, image_w / width, image_h / height)
    )
    axes.imshow(
        _colours(tensor, layout),
        extent=(0, layout.cols, layout.rows, 0),
        interpolation="nearest",
        aspect="auto",
    )
    if cell_px >= 6:  # white lines between cells
        line = max(0.3, cell_px / 16)
        axes.hlines(np.arange(layout.rows + 1), 0, layout.cols, colors="white", linewidth=line)
        axes.vlines(np.arange(layout.cols + 1), 0, layout.rows, colors="white", linewidth=line)
    axes.set_xlim(0, layout.cols)
    axes.set_ylim(layout.rows, 0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    _ticks(axes, layout, cell_px, _labels_fit(layout, cell_px))
    axes.set_title(panel.title, fontsize=10, loc="left", pad=6)
    if len(layout.shape) > 2 and _labels_fit(layout, cell_px):
        size = min(9, layout.gap * cell_px * 0.6)
        for leading, centre, row in layout.blocks():
            label = _index(leading)
            axes.text(centre, row, label, ha="center", va="center", fontsize=size, color="#444")


def _title(tensor: TensorAccesses, loop: int | None) -> str:
    shape = "×".join(str(s) for s in tensor.shape)
    counts = [tensor.describe(kind, loop) for kind in KINDS]
    subtitle = "; ".join(c for c in counts if c) or "not touched by this program"
    return f"{tensor.name}  ({shape})\n{subtitle}"


def _index(leading: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in leading) + "]"


def _labels_fit(layout: GridLayout, cell_px: float) -> bool:
    label = 2 + sum(len(str(s - 1)) + 2 for s in layout.shape[:-2])
    return label * 6 <= (layout.shape[-1] + layout.gap) * cell_px


def _ticks(axes, layout: GridLayout, cell_px: float, labelled_blocks: bool) -> None:
    axes.tick_params(labelsize=7, length=2, pad=1)
    if len(layout.shape) > 2 and not labelled_blocks:  # each row of blocks names its first
        rows = layout.block_rows()
        axes.set_xticks([])
        axes.set_yticks([r for _, r in rows], [_index(i) for i, _ in rows])
        return
    if len(layout.shape) > 2:  # blocks carry their index; ticks count inside each block
        height, width, gap = layout.shape[-2], layout.shape[-1], layout.gap
        block_rows = len(layout.block_rows())
        block_cols = min(layout.blocks_per_row, math.prod(layout.shape[:-2]))
        ys = [i for i in range(0, height, _step(height, cell_px))]
        xs = [i for i in range(0, width, _step(width, cell_px))]
        y_at = [gap + r * (height + gap) + i + 0.5 for r in range(block_rows) for i in ys]
        x_at = [c * (width + gap) + i + 0.5 for c in range(block_cols) for i in xs]
        axes.set_yticks(y_at, [str(i) for _ in range(block_rows) for i in ys])
        axes.set_xticks(x_at, [str(i) for _ in range(block_cols) for i in xs])
        return
    x_step = _step(layout.cols, cell_px)
    y_step = _step(layout.rows, cell_px)
    xs = np.arange(0, layout.cols, x_step)
    ys = np.arange(0, layout.rows, y_step)
    axes.set_xticks(xs + 0.5, [str(x) for x in xs])
    row_start = layout.wrap if len(layout.shape) == 1 else 1
    axes.set_yticks(ys + 0.5, [str(y * row_start) for y in ys])


def _step(count: int, cell_px: float) -> int:
    step = 1
    while step * cell_px < 24 and step < count:
        step *= 2
    return step


def _headline(accesses: ProgramAccesses) -> str:
    program = f"{accesses.kernel}: program {accesses.pid} of grid {accesses.grid}"
    if not accesses.trip_count:
        return f"{program} (no loop)"
    if accesses.loop is None:
        return f"{program}, every loop iteration ({accesses.trip_count})"
    return f"{program}, loop iteration {accesses.loop} of {accesses.trip_count}"


def _legend(accesses: ProgramAccesses) -> list[tuple[str, str]]:
    """The colours that occur in the picture, with what they mean."""
    present = set()
    for tensor in accesses.tensors:
        loaded, stored = (tensor.program[k] for k in KINDS)
        loaded_now, stored_now = (tensor.now[k] for k in KINDS)
        untouched_now = ~(loaded_now | stored_now)
        for key in NOW:
            if ((loaded_now == key[0]) & (stored_now == key[1])).any():
                present.add(("now", key))
            if ((loaded == key[0]) & (stored == key[1]) & untouched_now).any():
                present.add(("other", key))
    at = "" if accesses.loop is None else f" at iteration {accesses.loop}"
    words = {(True, False): "loaded", (False, True): "stored", (True, True): "loaded and stored"}
    entries = [(f"{words[key]}{at}", NOW[key]) for key in NOW if ("now", key) in present]
    entries += [
        (f"{words[key]} at other iterations", OTHER[key])
        for key in OTHER
        if ("other", key) in present
    ]
    untouched = "untouched" if accesses.loop is None else "untouched by this program"
    return [*entries, (untouched, UNTOUCHED)]
