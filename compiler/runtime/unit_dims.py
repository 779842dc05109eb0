"""Each dimension an arrangement squeezes has at most one element at this launch (the sizes the
front end could not decide: compiler/frontend/squeezes.py); a larger one would be read at its
first index alone, so the launch is refused, naming the tensor, the size and the fix."""

from __future__ import annotations

from collections.abc import Mapping

from compiler.backends.artifact import Artifact
from compiler.frontend.squeezes import FIX
from compiler.runtime.bindings import LaunchError
from compiler.runtime.grid import GridError, evaluate_grid, integer_bindings


def check_unit_dims(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    env = {**integer_bindings(bindings), **artifact.schedule}
    for tensor, expression in artifact.unit_dims:
        try:
            size = evaluate_grid(expression, env)
        except GridError:
            return  # an argument is missing or wrong: the launcher's checks say which
        if size > 1:  # none: nothing is left out
            raise LaunchError(
                f"@{artifact.kernel_name}: {tensor}'s arrangement squeezes a dimension that has "
                f"{size} elements for these arguments ({expression}); {FIX}"
            )
