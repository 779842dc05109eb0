"""`launch`: run an artifact with its backend's launcher, `compiler/runtime/<backend>_launcher.py`
(a backend without one cannot run yet; nothing here names a backend)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import LaunchError


def launch(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    """Run the artifact's kernel once over its grid.

    `bindings`: argument name -> torch tensor (buffer) or Python number (index or scalar). Names the
    kernel does not take are ignored; they may still appear in the grid expression.
    """
    name = f"compiler.runtime.{artifact.backend}_launcher"
    try:
        launcher = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        raise LaunchError(
            f"no launcher for backend {artifact.backend!r}; add {name.replace('.', '/')}.py"
        ) from None
    launcher.launch(artifact, bindings)
