"""The sweep's plot: for every row of the tables, the pass rate with the skill and without it,
each with its 95% Wilson interval, so the gap and its uncertainty are seen at once."""

from __future__ import annotations

from pathlib import Path

from agents.sweep.stats import wilson
from agents.sweep.summary import rows

STYLE = {"with": ("tab:blue", "o", -0.12), "without": ("tab:orange", "s", 0.12)}


def plot(title: str, records: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt

    table = rows(records)
    figure, axes = plt.subplots(figsize=(9, 1.2 + 0.55 * max(len(table), 1)))
    for index, row in enumerate(table):
        for arm, (colour, marker, offset) in STYLE.items():
            counts = row.arms[arm]
            if not counts.runs:
                continue
            rate = counts.passed / counts.runs
            low, high = wilson(counts.passed, counts.runs)
            axes.errorbar(
                100 * rate,
                index + offset,
                xerr=[[100 * (rate - low)], [100 * (high - rate)]],
                fmt=marker,
                color=colour,
                capsize=3,
                label=f"{arm} the skill" if index == 0 else None,
            )
    axes.set_yticks(range(len(table)), [f"{r.skill}\n{r.eval} · {r.model}" for r in table])
    axes.invert_yaxis()
    axes.set_xlim(-2, 102)
    axes.set_xlabel("runs that pass every checked expectation (%), 95% interval")
    axes.set_title(title, fontsize=10)
    axes.grid(axis="x", alpha=0.3)
    if table:
        axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
