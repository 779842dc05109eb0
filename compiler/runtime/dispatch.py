"""`launch`: run an artifact with its backend's launcher, `compiler/runtime/<backend>_launcher.py`
(a backend without one cannot run yet; nothing here names a backend), through a launch plan made
for these bindings alone (`plan.py`; `KernelHandle` keeps its plans and reuses them)."""

from __future__ import annotations

from collections.abc import Mapping

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import LaunchError
from compiler.runtime.plan import LaunchPlan

__all__ = ["LaunchError", "LaunchPlan", "launch"]


def launch(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    """Run the artifact's kernel once over its grid.

    `bindings`: argument name -> torch tensor (buffer) or Python number (index or scalar). Names the
    kernel does not take are ignored; they may still appear in the grid expression.
    """
    LaunchPlan(artifact, bindings)(bindings, stacklevel=3)
