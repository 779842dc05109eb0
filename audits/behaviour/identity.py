"""Identity invariance: lowering a renamed program gives what lowering the original gives.

Both artifacts are read as a list of stages (the front end's IR, each pass's IR and remarks, the
schedule, the emitted source); the first stage whose renamed output, with the new names mapped
back, differs from the original's is the finding. The SSA hash line covers names, so it is left
out here (the trace audit checks it).
"""

from __future__ import annotations

import re

from audits.behaviour.difference import text_difference
from audits.behaviour.renaming import Renamed

_SSA_HASH = re.compile(r"ssa-sha256: [0-9a-f]{64}")


def stages(artifact, restore=lambda text: text) -> list[tuple[str, str]]:
    """(stage, text) in pipeline order, each text with `restore` applied."""

    def text(value: object) -> str:
        return restore(_SSA_HASH.sub("ssa-sha256: <hash>", str(value)))

    listed = [("front end", text(artifact.initial_ssa))]
    for entry in artifact.trace:
        remarks = "".join(f"\n// remark: {remark}" for remark in entry["remarks"])
        listed.append((f"pass {entry['pass']}", text(entry["ir"] + remarks)))
    decision = (artifact.schedule, artifact.num_warps, artifact.num_stages, artifact.grid)
    listed.append(("schedule", text(decision)))
    listed.append(("launch arguments", text((artifact.args, artifact.arg_dtypes))))
    listed.append(("emitter", text(artifact.source)))
    return listed


def first_difference(
    original: list[tuple[str, str]], other: list[tuple[str, str]]
) -> tuple[int, str, str] | None:
    """(stage number, stage, what differs) for the first stage that differs, or None."""
    for number, ((stage, want), (other_stage, got)) in enumerate(
        zip(original, other, strict=False), 1
    ):
        if stage != other_stage:
            return number, stage, f"the renamed program ran {other_stage} here instead"
        if want != got:
            return number, stage, text_difference(want, got)
    if len(original) != len(other):
        return min(len(original), len(other)) + 1, "pipeline", "a different number of stages"
    return None


def renamed_difference(original, renamed_artifact, renamed: Renamed):
    return first_difference(stages(original), stages(renamed_artifact, renamed.restore))
